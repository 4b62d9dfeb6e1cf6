/**
 * The English text of two-factor authentication's pages (setup, recovery codes, the sign-in's
 * code, the account page's section), merged into page-text.ts's dictionary: same rules, same
 * `{name}` placeholders. Kept apart only so that neither file grows past reading.
 */
export const TWO_FACTOR_TEXT = {
  'twoFactor.title': 'Two-factor authentication',
  'twoFactor.isOn': 'Two-factor authentication is on: after your password, signing in asks for a code from your authenticator app.',
  'twoFactor.isOff':
    'Two-factor authentication is off. Turn it on and signing in also asks for a code from an authenticator app on your phone, so that your password alone is not enough.',
  'twoFactor.codesLeft': 'Unused recovery codes: {count}.',
  'twoFactor.turnOn': 'Turn on two-factor authentication',
  'twoFactor.unavailable': 'You sign in with single sign-on: whether it asks for a second factor is up to your identity provider.',
  'twoFactor.required': 'Your administrator requires two-factor authentication. Turn it on to go on using this service.',
  'twoFactor.requiredOn': 'Your administrator requires two-factor authentication, so it cannot be turned off.',
  'twoFactor.proofIntro': 'Confirm it is you: enter your current password, or a code from your app or a recovery code.',
  'twoFactor.password': 'Current password',
  'twoFactor.proofCode': 'Or a code',
  'twoFactor.regenerateTitle': 'New recovery codes',
  'twoFactor.regenerateNote': 'Your present recovery codes stop working, and you get 16 new ones.',
  'twoFactor.regenerate': 'Make new recovery codes',
  'twoFactor.turnOffTitle': 'Turn it off',
  'twoFactor.turnOff': 'Turn off two-factor authentication',
  'twoFactor.wrongProof': 'That password or code is not right. Nothing was changed.',
  'twoFactor.enabled': 'Two-factor authentication is on. Keep your recovery codes safe.',
  'twoFactor.disabled': 'Two-factor authentication is off.',
  'twoFactor.back': 'Back to two-factor authentication',

  'twoFactor.codesTitle': 'Your recovery codes',
  'twoFactor.codesIntro':
    'If you lose your phone, each of these codes signs you in once instead of a code from the app. Save them somewhere safe now (a password manager, or on paper): they are shown only this once.',
  'twoFactor.codesReplace': 'Any codes shown to you before no longer work.',
  'twoFactor.codesList': 'Recovery codes',
  'twoFactor.codesNext': 'I saved them: now add the authenticator app',

  'twoFactor.verifyTitle': 'Add your authenticator app',
  'twoFactor.verifyIntro': 'Scan this QR code with your authenticator app, then enter the 6-digit code it shows.',
  'twoFactor.qr': 'QR code for your authenticator app',
  'twoFactor.secretIntro': 'Cannot scan it? Enter this key in the app instead (time-based):',
  'twoFactor.verifyCode': 'Code from the app',
  'twoFactor.wrongCode': 'That code is not right. Check that the clock of your phone is right, and enter the newest code.',

  'twoFactor.signInTitle': 'Enter your code',
  'twoFactor.signInIntro': 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
  'twoFactor.signInCode': 'Code',
  'twoFactor.signInSubmit': 'Verify',
  'twoFactor.signInWrong': 'That code is not right. Tries left: {count}.',
  'twoFactor.signInAgainTitle': 'Sign in again',
  'twoFactor.signInExhausted': 'Too many wrong codes. Sign in again with your password.',
  'twoFactor.signInExpired': 'This sign-in has expired (it waits 5 minutes for the code). Sign in again with your password.',
  'twoFactor.cancel': 'Cancel',
} as const;
