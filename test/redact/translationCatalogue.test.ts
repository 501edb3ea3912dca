// Issue 26, eighth round: a translation catalogue (a locale file) maps keys to
// the strings a user interface shows, so a key that names a secret there holds
// the word for it (`'password' => 'Salasana'`). The file's nature decides, from
// its own lines: the same value in a configuration file is a chosen password.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { isTranslationCatalogue, isUiString } from '../../src/redact/translationCatalogue.ts';

const redactor = await createRedactor();

/** A PHP catalogue as Laravel apps write them, in a language nobody here wrote a word list for. */
const phpCatalogue = (password: string) =>
  [
    '<?php',
    'return [',
    "    'failed' => 'Nämä tunnistetiedot eivät vastaa tietojamme.',",
    "    'throttle' => 'Liian monta kirjautumisyritystä. Yritä uudelleen :seconds sekunnin kuluttua.',",
    "    'sign_up' => 'Rekisteröidy',",
    "    'log_in' => 'Kirjaudu sisään',",
    "    'logout' => 'Kirjaudu ulos',",
    "    'name' => 'Nimi',",
    "    'username' => 'Käyttäjätunnus',",
    `    'password' => '${password}',`,
    "    'password_confirm' => 'Vahvista salasana',",
    "    'forgot_password' => 'Unohditko salasanan?',",
    "    'remember_me' => 'Muista minut',",
    "    'reset_password_send_button' => 'Lähetä palautuslinkki',",
    '];',
    '',
  ].join('\n');

/** A JSON catalogue whose keys are the English strings. */
const jsonCatalogue = (value: string) =>
  `{\n${[
    '"Sign in": "Iniciar sesión"',
    '"Sign out": "Cerrar sesión"',
    '"Remember me": "Recordarme"',
    '"Forgot password?": "¿Olvidaste la contraseña?"',
    '"Reset password": "Restablecer contraseña"',
    `"Password": "${value}"`,
    '"Username": "Nombre de usuario"',
    '"Must be 8 characters": "Debe tener 8 caracteres"',
    '"New Password": "Nueva contraseña"',
  ]
    .map((line) => `  ${line}`)
    .join(',\n')}\n}\n`;

test('a lone capitalised word under a password key is kept in a translation catalogue, whatever its language', async () => {
  for (const word of ['Salasana', 'Geheim', 'Heslo', 'Lozinka', 'Hemmelighet', 'API-nyckel']) {
    const text = phpCatalogue(word);
    assert.equal((await redactor.redact(text, { path: 'resources/lang/fi/auth.php' })).text, text, word);
    // The path says nothing: the file's own lines decide.
    assert.equal((await redactor.redact(text, { path: 'auth.php' })).text, text, word);
  }
  const json = jsonCatalogue('Contrasenya');
  assert.equal((await redactor.redact(json, { path: 'portal.json' })).text, json);
});

test('messages with numbers, escaped quotes and other marks are strings of the catalogue', () => {
  for (const value of [
    'Les contrasenyes han de tenir almenys 8 caràcters i han de coincidir amb la confirmació de contrasenya.',
    "Mae\\'r gyfrinach a ddarparwyd ar gyfer y tocyn API defnyddiedig a roddwyd yn anghywir",
    '¿Contraseña olvidada?',
    'Mot de passe oublié ?',
    // French typography: a no-break space before the question mark.
    'Mot de passe oublié\u00a0?',
    'Wait :seconds seconds',
  ]) {
    assert.ok(isUiString(value), value);
  }
  // A word run into digits, a random value, a template, a key=value: not what a user interface shows.
  for (const value of ['hunter2000', 'Xk9qLm2vB7Tz4Wp8', 'S3cr3t!', '{{ .Values.password }}', 'a=b']) {
    assert.ok(!isUiString(value), value);
  }
});

test('a generated or chosen secret in a catalogue is still masked, and the same word in a configuration file is', async () => {
  const token = 'Xk9qLm2vB7Tz4Wp8Rb3Yc1Hd';
  const text = phpCatalogue(token);
  assert.ok(!(await redactor.redact(text, { path: 'auth.php' })).text.includes(token));
  const json = jsonCatalogue('hunter2000');
  assert.ok(!(await redactor.redact(json, { path: 'portal.json' })).text.includes('hunter2000'));
  // A configuration file: its values are settings, not phrases.
  const config = [
    "    'driver' => 'mysql',",
    "    'host' => '127.0.0.1',",
    "    'port' => '3306',",
    "    'database' => 'forge',",
    "    'username' => 'forge',",
    "    'password' => 'Salasana',",
    "    'charset' => 'utf8mb4',",
    "    'collation' => 'utf8mb4_unicode_ci',",
    "    'prefix' => '',",
  ].join('\n');
  assert.ok(!isTranslationCatalogue(config));
  assert.ok(!(await redactor.redact(config, { path: 'config/database.php' })).text.includes('Salasana'));
});

test('judging a file stays linear on hostile input: long lines are not read, lines read are bounded', () => {
  const quotes = `${'" '.repeat(100_000)}\n`.repeat(20);
  const pairs = `'k' => '${"'".repeat(390)}',\n`.repeat(5_000);
  for (const text of [quotes, pairs]) {
    const started = performance.now();
    isTranslationCatalogue(text);
    isUiString(`a${"'".repeat(399)}`);
    assert.ok(performance.now() - started < 500, `${performance.now() - started} ms`);
  }
});

test('a short catalogue (five messages) is one when nearly all its strings are phrases', async () => {
  const text = [
    '<?php',
    'return [',
    "    'password' => 'Les mots de passe doivent faire au moins 8 caractères et correspondre à la confirmation.',",
    "    'user' => \"Nous n'avons pas trouvé d'utilisateur avec cette adresse e-mail.\",",
    "    'token' => 'Le jeton de réinitialisation du mot de passe n\\'est pas valide pour cette adresse e-mail.',",
    "    'sent' => 'Nous vous avons envoyé un lien de réinitialisation de mot de passe par e-mail !',",
    "    'reset' => 'Votre mot de passe a été réinitialisé !',",
    '];',
    '',
  ].join('\n');
  assert.equal((await redactor.redact(text, { path: 'lang/fr/passwords.php' })).text, text);
  // Four settings and one label are not a catalogue.
  assert.ok(
    !isTranslationCatalogue(
      "'driver' => 'smtp',\n'host' => 'mail.example.org',\n'port' => '587',\n'username' => 'mailer',\n'password' => 'Tiikeri Kissa',\n",
    ),
  );
});

test('issue 26 thirteenth round: a catalogue keyed by its source phrases whose translations are mostly single words, and a string ending in an icon, is a catalogue; a configuration keyed by phrases is not', async () => {
  // i18next style: the English phrase is the key, most translations are one word (a UI's buttons and labels).
  const labels = (secret: string, message: string) =>
    `{\n${[
      '"Add": "Hinzufügen"',
      '"Backed Up": "Gesichert"',
      '"Backup State": "Sicherungs-Status"',
      '"Cancel": "Abbrechen"',
      '"Attestation Type": "Bescheinigungsart"',
      '"Authenticator GUID": "Authentifizierungs-GUID"',
      `"Secret": "${secret}"`,
      `"Click to display extended information for this Credential": "${message}"`,
      '"Two-Factor Authentication": "Zwei-Faktor-Authentifizierung"',
    ].join(',\n')}\n}\n`;
  const text = labels('Geheimnis', 'Pro více informací klikněte na 🛈');
  assert.equal((await redactor.redact(text, { path: 'internal/server/locales/de-DE/settings.json' })).text, text);
  assert.ok(isUiString('Pro více informací klikněte na 🛈'));
  // The same file with a generated value under the secret's key: masked.
  const value = 'Qm7vX2kLp9RtZ4wN';
  const withSecret = labels(value, 'Mehr Informationen');
  assert.ok(!(await redactor.redact(withSecret, { path: 'locales/de.json' })).text.includes(value));
  // A configuration whose keys are phrases, with one-word values: not a catalogue, its password is masked.
  const config =
    '{\n  "Database host": "db.internal",\n  "Database user": "orders",\n  "Admin email": "ops@example.com",\n  "Api base url": "https://api.example.com",\n  "password": "Sunflower"\n}\n';
  assert.ok(!(await redactor.redact(config, { path: 'config/app.json' })).text.includes('Sunflower'));
});
