// Where a JSON text first breaks the grammar (RFC 8259), and how: for error explanations that
// name a position without quoting the text (a body may hold a card number).
export interface SyntaxProblem { position: number; problem: string }

export function jsonSyntaxProblem(text: string): SyntaxProblem | undefined {
  let i = 0;
  const fail: (problem: string) => never = (problem) => { throw { position: i, problem } as SyntaxProblem; };
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++; };
  const expect = (word: string) => {
    for (const ch of word) { if (text[i] !== ch) fail(i >= text.length ? 'unexpected end of input' : 'unexpected character'); i++; }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const ch = text.charCodeAt(i);
      if (ch === 0x22) { i++; return; }
      if (ch < 0x20) fail('control character in string');
      if (ch === 0x5c) {
        i++;
        const esc = text[i];
        if (esc === 'u') { if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad unicode escape'); i += 5; continue; }
        if (esc === undefined || !'"\\/bfnrt'.includes(esc)) fail('bad escape');
      }
      i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (!match) fail('bad number');
    i += match![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === undefined) fail('unexpected end of input');
    if (ch === '{') {
      i++; ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(i >= text.length ? 'unexpected end of input' : 'expected a double-quoted property name');
        string(); ws();
        if (text[i] !== ':') fail(i >= text.length ? 'unexpected end of input' : "expected ':' after a property name");
        i++; value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        fail(i >= text.length ? 'unexpected end of input' : "expected ',' or '}' after a property value");
      }
    }
    if (ch === '[') {
      i++; ws();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        fail(i >= text.length ? 'unexpected end of input' : "expected ',' or ']' after an array element");
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return expect('true');
    if (ch === 'f') return expect('false');
    if (ch === 'n') return expect('null');
    if (ch === '-' || (ch >= '0' && ch <= '9')) return number();
    fail('unexpected character');
  };
  try {
    value(); ws();
    if (i < text.length) fail('unexpected content after the JSON value');
    return undefined;
  } catch (error) {
    if (error && typeof error === 'object' && 'position' in error) return error as SyntaxProblem;
    // Nesting deeper than the stack: report where the scan stood.
    if (error instanceof RangeError) return { position: i, problem: 'nesting too deep' };
    throw error;
  }
}
