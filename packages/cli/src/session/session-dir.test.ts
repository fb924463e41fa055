import { describe, expect, it } from 'vitest';
import { folderFromSessionFolderName, pantoHome, sessionDirFor, sessionFolderName } from './session-dir.js';

describe('sessionFolderName', () => {
  it('turns separators into dashes and escapes literal dashes', () => {
    expect(sessionFolderName('/home/ada/my-app')).toBe('home-ada-my%2Dapp');
    expect(sessionFolderName('/srv/projects/panto')).toBe('srv-projects-panto');
  });

  it('names the root folder "-"', () => {
    expect(sessionFolderName('/')).toBe('-');
  });

  it('escapes the escape character and characters unsafe in file names', () => {
    expect(sessionFolderName('/tmp/100%')).toBe('tmp-100%25');
    expect(sessionFolderName('/tmp/a:b*c?d"e<f>g|h\\i')).toBe('tmp-a%3Ab%2Ac%3Fd%22e%3Cf%3Eg%7Ch%5Ci');
    expect(sessionFolderName('/tmp/tab\there')).toBe('tmp-tab%09here');
  });

  it('keeps spaces and non-ASCII letters readable', () => {
    expect(sessionFolderName('/home/jürgen/My Project')).toBe('home-jürgen-My Project');
  });

  it('gives different folders different names, even where a naive mapping collides', () => {
    const folders = [
      '/a/b-c',
      '/a-b/c',
      '/a/b/c',
      '/a-b-c',
      '/a/-b',
      '/a-/b',
      '/a--b',
      '/a%2Db',
      '/a%252Db',
      '/a/b%2Fc',
      '/a/b/c/',
      '/ab',
      '/a b',
      '/a_b',
      '/',
      '/-',
      '/%',
    ];
    const names = folders.map(sessionFolderName);
    // '/a/b/c/' normalises to '/a/b/c': the same folder.
    expect(new Set(names).size).toBe(new Set(folders.map((f) => (f.length > 1 ? f.replace(/\/$/, '') : f))).size);
  });

  it('can be decoded back to the folder it came from', () => {
    for (const folder of ['/home/ada/my-app', '/', '/tmp/100%', '/x/ü-ß/a:b', '/a--b/-/c', '/tmp/tab\there']) {
      expect(folderFromSessionFolderName(sessionFolderName(folder))).toBe(folder);
    }
  });

  it('shortens very long names with a hash, keeping them distinct and under 255 bytes', () => {
    const long = `/${'deep/'.repeat(60)}end`;
    const other = `/${'deep/'.repeat(60)}end2`;
    const name = sessionFolderName(long);
    expect(name.length).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(name)).toBeLessThan(255);
    expect(name).toMatch(/%h[0-9a-f]{16}$/);
    expect(sessionFolderName(other)).not.toBe(name);
    expect(folderFromSessionFolderName(name)).toBeUndefined();
  });

  it('does not split a %XX escape when shortening', () => {
    const name = sessionFolderName(`/${'-'.repeat(100)}`);
    expect(name).toMatch(/^(%2D)+%h[0-9a-f]{16}$/);
  });
});

describe('pantoHome and sessionDirFor', () => {
  it('defaults to ~/.panto', () => {
    expect(pantoHome({}, '/work', '/home/ada')).toBe('/home/ada/.panto');
  });

  it('honours PANTO_HOME, expanding ~ and resolving relative paths against cwd', () => {
    expect(pantoHome({ PANTO_HOME: '/data/panto' }, '/work', '/home/ada')).toBe('/data/panto');
    expect(pantoHome({ PANTO_HOME: '~/p' }, '/work', '/home/ada')).toBe('/home/ada/p');
    expect(pantoHome({ PANTO_HOME: 'rel' }, '/work', '/home/ada')).toBe('/work/rel');
  });

  it("puts a folder's sessions in $PANTO_HOME/sessions/<folder name>", () => {
    expect(sessionDirFor('/home/ada/my-app', { PANTO_HOME: '/p' })).toBe('/p/sessions/home-ada-my%2Dapp');
  });
});
