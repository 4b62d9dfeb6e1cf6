import 'reflect-metadata';
import { parse } from 'node:querystring';
import type { Type } from '@nestjs/common';
import { plainToInstance, Type as TypeOf } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, ValidateNested, validateSync } from 'class-validator';
import { CarriesFieldErrors, characterCount, createValidationPipe, fieldErrorsOf, humanize, isPaddedBase64, OptionalText } from './validation';

describe('characterCount', () => {
  it('counts an astral character (one code point, two UTF-16 units) once', () => {
    expect(characterCount('😀', 1)).toBe(1);
    expect(characterCount('😀'.repeat(255), 255)).toBe(255);
    expect(characterCount('😀'.repeat(256), 255)).toBe(256);
    expect(characterCount(`a😀b𝄞c`, 4)).toBe(5);
  });

  it('is exact whenever the UTF-16 length is over the limit, so a comparison with the limit is always right', () => {
    const limit = 1024;
    for (const value of ['q'.repeat(1024), 'q'.repeat(1025), '😀'.repeat(1024), '😀'.repeat(1025), `${'😀'.repeat(1023)}ab`]) {
      expect(characterCount(value, limit) > limit).toBe([...value].length > limit);
    }
    expect(characterCount(`${'😀'.repeat(1023)}a`, limit)).toBe(1024);
  });

  it('answers the UTF-16 length (an upper bound) without iterating when that is within the limit', () => {
    expect(characterCount('', 0)).toBe(0);
    expect(characterCount('abc', 10)).toBe(3);
    expect(characterCount('😀', 10)).toBe(2);
  });

  it('counts code points, not user-perceived characters, and a lone surrogate as one', () => {
    expect(characterCount('e\u0301', 1)).toBe(2);
    expect(characterCount('👨‍👩‍👧', 1)).toBe(5);
    expect(characterCount('\ud800x', 1)).toBe(2);
  });
});

describe('humanize', () => {
  it.each([
    ['expire_after_days', 'Expire after days'],
    ['expire_after_views', 'Expire after views'],
    ['deletable_by_viewer', 'Deletable by viewer'],
    ['retrieval_step', 'Retrieval step'],
    ['payload', 'Payload'],
    ['name', 'Name'],
    ['Kind', 'Kind'],
    ['a', 'A'],
    ['', ''],
  ])('turns %j into %j', (field, expected) => {
    expect(humanize(field)).toBe(expected);
  });
});

describe('OptionalText', () => {
  class Sample {
    @OptionalText(5)
    text?: string;
  }

  const check = (plain: Record<string, unknown>) => {
    const sut = plainToInstance(Sample, plain);
    return { value: sut.text, errors: validateSync(sut).flatMap((error) => Object.values(error.constraints ?? {})) };
  };

  it('treats null as omitted', () => {
    expect(check({ text: null })).toEqual({ value: undefined, errors: [] });
    expect(check({})).toEqual({ value: undefined, errors: [] });
  });

  it('accepts up to the limit in characters, astral ones included', () => {
    expect(check({ text: '😀😀😀😀😀' })).toEqual({ value: '😀😀😀😀😀', errors: [] });
    expect(check({ text: 'abcdef' }).errors).toEqual(['Text is too long (maximum is 5 characters).']);
  });

  it.each([
    ['a number', 5, 'Text must be a string.'],
    ['a NUL', 'a\u0000b', 'Text must be valid text without NUL characters.'],
    ['a lone surrogate', 'a\ud800', 'Text must be valid text without NUL characters.'],
  ])('refuses %s with one message', (_name, text, message) => {
    expect(check({ text }).errors).toEqual([message]);
  });
});

describe('createValidationPipe', () => {
  class WithDefault {
    @IsOptional()
    @IsInt({ message: 'Invalid page parameter' })
    page: number = 1;
  }
  class Required {
    @IsString({ message: 'Name must be a string.' })
    name!: string;
  }
  const query = (metatype: Type) => ({ type: 'query' as const, metatype, data: undefined });
  const emptyQuery = () => parse('');

  it('answers an empty query with a fresh instance holding the defaults, every time', async () => {
    const pipe = createValidationPipe();
    const first = await pipe.transform(emptyQuery(), query(WithDefault));
    const second = await pipe.transform({}, query(WithDefault));
    expect(first).toBeInstanceOf(WithDefault);
    expect(first).toEqual({ page: 1 });
    expect(second).toEqual({ page: 1 });
    expect(second).not.toBe(first);
  });

  it('still validates what is not empty after an empty query passed', async () => {
    const pipe = createValidationPipe();
    await pipe.transform(emptyQuery(), query(WithDefault));
    await expect(pipe.transform({ page: 'x' }, query(WithDefault))).rejects.toThrow('Invalid page parameter');
    await expect(pipe.transform({ page: 3 }, query(WithDefault))).resolves.toEqual({ page: 3 });
  });

  it('refuses an empty object every time when the class requires a field', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) await expect(pipe.transform({}, query(Required))).rejects.toThrow('Name must be a string.');
  });

  describe('an input that carries its field errors to its service', () => {
    class Input {
      @IsOptional()
      @IsInt({ message: 'Views must be an integer.' })
      views?: number;

      @OptionalText(3)
      name?: string;

      @IsOptional()
      @IsString({ message: 'Note must be a string.' })
      note?: string;
    }
    class Body {
      @IsObject({ message: 'input is missing' })
      @ValidateNested()
      @TypeOf(() => Input)
      @CarriesFieldErrors()
      input!: Input;
    }
    const body = { type: 'body' as const, metatype: Body, data: undefined };

    it('hands on the input without the fields at fault, with their errors', async () => {
      const sut = (await createValidationPipe().transform({ input: { views: 'x', name: 'long', note: 'kept' } }, body)) as Body;
      expect(Object.keys(sut.input)).toEqual(['note']);
      expect(fieldErrorsOf(sut.input)).toEqual({ views: ['Views must be an integer.'], name: ['Name is too long (maximum is 3 characters).'] });
      // A copy, as a controller may make, keeps them.
      expect(fieldErrorsOf({ ...sut.input, kind: 'text' })).toEqual(fieldErrorsOf(sut.input));
    });

    it('hands on a valid input without errors', async () => {
      const sut = (await createValidationPipe().transform({ input: { views: 2 } }, body)) as Body;
      expect(fieldErrorsOf(sut.input)).toEqual({});
    });

    it('still refuses the body at once when the input itself is missing', async () => {
      await expect(createValidationPipe().transform({}, body)).rejects.toThrow('input is missing');
    });
  });
});

describe('isPaddedBase64', () => {
  it.each([
    ['', true],
    ['QQ==', true],
    ['QUI=', true],
    ['QUJD', true],
    ['a+/9', true],
    ['QQ=', false],
    ['Q===', false],
    ['QQ==QUJD', false],
    ['QU J', false],
    ['QUJ-', false],
  ])('%j → %s', (value, expected) => {
    expect(isPaddedBase64(value)).toBe(expected);
  });

  it('reads the tens of MB a JSON file carries without running out of stack', () => {
    const data = Buffer.alloc(24 * 1024 * 1024, 7).toString('base64');
    expect(isPaddedBase64(data)).toBe(true);
    expect(isPaddedBase64(`${data.slice(0, -4)}!AAA`)).toBe(false);
  });
});
