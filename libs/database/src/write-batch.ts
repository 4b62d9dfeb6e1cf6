/** What one statement of a batch wrote. */
export interface WriteResult {
  affected: number;
  /** The new row's id after an INSERT. */
  insertId: number;
}

/**
 * A statement of a batch. Its parameters are values, or what the batch knows only as it runs: the
 * id an earlier step inserted (an InsertedId, or a value made from one) and a Total of the batch.
 */
export interface Statement {
  sql: string;
  parameters: readonly unknown[];
  /** It must commit with the guard or not at all (an event of the change); see Sql.run. */
  atomic?: boolean;
  /** A guard: when it changes no row, the batch writes nothing, the statements before it undone. */
  guard?: boolean;
  /** What the statement adds to the batch's totals, by name (one audit entry, a mail's recipients). */
  adds?: Readonly<Record<string, number>>;
  /** Called once the batch it belongs to is written (committed), with what it wrote; never when the batch was undone. */
  written?: (batch: WrittenBatch) => void;
}

/** The id a step of a batch inserts, for the steps after it: a name for it, not its position. */
export class InsertedId {
  constructor(
    readonly batch: WriteBatch,
    readonly step: number,
    readonly name: string,
  ) {}

  /** A parameter made from the id once it is known (a JSON document that names it). */
  map(build: (id: number) => unknown): DerivedParameter {
    return new DerivedParameter(this, build);
  }
}

export class DerivedParameter {
  constructor(
    readonly from: InsertedId,
    readonly build: (id: number) => unknown,
  ) {}
}

/**
 * A parameter worth the sum of what the batch's statements add under `name`, taken when the batch
 * runs: a counter kept in the guard's row follows what the batch wrote, whatever its order.
 */
export class Total {
  constructor(readonly name: string) {}
}

export const total = (name: string): Total => new Total(name);

/**
 * The statements of one write: its guard (the change itself, a conditional UPDATE or an INSERT)
 * first, then what must be written with it. Steps name what earlier ones inserted (`add` returns
 * an InsertedId), never their positions, and counters come from what was added (Total), so adding
 * a step or changing their order cannot point a statement at the wrong row or miscount. Run by
 * Sql.run; a batch runs once.
 */
export class WriteBatch {
  private readonly statements: Statement[] = [];
  private readonly names: string[] = [];
  private ran = false;

  /** The batch writes nothing unless `guard` changes a row. */
  constructor(guard: Statement, name = 'guard') {
    this.add({ ...guard, guard: true }, name);
  }

  /** The id the guard inserted (an INSERT guard's new row). */
  get guardId(): InsertedId {
    return new InsertedId(this, 0, this.names[0]);
  }

  /** Adds a statement after those added so far; its id, for the statements added after it. */
  add(statement: Statement, name = `statement ${this.statements.length + 1}`): InsertedId {
    if (this.ran) throw new Error(`Cannot add "${name}": the batch has run.`);
    for (const parameter of statement.parameters) {
      const id = parameter instanceof DerivedParameter ? parameter.from : parameter;
      // Every id of this batch is of a statement added before: only another batch's can be wrong.
      if (id instanceof InsertedId && id.batch !== this) throw new Error(`"${name}" names the id of "${id.name}", which another batch inserts.`);
    }
    this.statements.push(statement);
    this.names.push(name);
    return new InsertedId(this, this.statements.length - 1, name);
  }

  addAll(statements: readonly Statement[]): void {
    for (const statement of statements) this.add(statement);
  }

  /** The sum of what the statements add under `name`. */
  total(name: string): number {
    return this.statements.reduce((sum, statement) => sum + (statement.adds?.[name] ?? 0), 0);
  }

  /** The statements, in order, for Sql.run; the batch takes no more. */
  run(): readonly Statement[] {
    this.ran = true;
    return this.statements;
  }

  /** A statement's parameters with the ids and totals resolved, from what the statements before it wrote. */
  parametersOf(statement: Statement, written: readonly WriteResult[]): unknown[] {
    return statement.parameters.map((parameter) => {
      if (parameter instanceof InsertedId) return written[parameter.step].insertId;
      if (parameter instanceof DerivedParameter) return parameter.build(written[parameter.from.step].insertId);
      if (parameter instanceof Total) return this.total(parameter.name);
      return parameter;
    });
  }
}

/** What a batch wrote: the ids its statements inserted. */
export class WrittenBatch {
  constructor(readonly results: readonly WriteResult[]) {}

  idOf(id: InsertedId): number {
    return this.results[id.step].insertId;
  }
}
