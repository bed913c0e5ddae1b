// Where a JSON text first breaks the grammar (RFC 8259), and how: for error explanations that
// name a position without quoting the text (a body may hold a card number).
export interface SyntaxProblem { position: number; problem: string }

/** The first problem found, thrown from anywhere in the scan to its entry. */
class Stop extends Error {
  constructor(readonly found: SyntaxProblem) { super(found.problem); }
}

/** A recursive-descent scan that only checks (it builds nothing). */
class Scan {
  i = 0;
  constructor(private readonly text: string) {}

  fail(problem: string): never {
    throw new Stop({ position: this.i, problem });
  }

  /** `problem`, or 'unexpected end of input' when the text ended there. */
  failHere(problem: string): never {
    return this.fail(this.i >= this.text.length ? 'unexpected end of input' : problem);
  }

  ws(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  word(word: string): void {
    for (const ch of word) {
      if (this.text[this.i] !== ch) this.failHere('unexpected character');
      this.i++;
    }
  }

  string(): void {
    const text = this.text;
    this.i++; // opening quote
    for (;;) {
      if (this.i >= text.length) this.fail('unterminated string');
      const ch = text.charCodeAt(this.i);
      if (ch === 0x22) { this.i++; return; }
      if (ch < 0x20) this.fail('control character in string');
      if (ch === 0x5c) {
        this.i++;
        const esc = text[this.i];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 1, this.i + 5))) this.fail('bad unicode escape');
          this.i += 5;
          continue;
        }
        if (esc === undefined || !'"\\/bfnrt'.includes(esc)) this.fail('bad escape');
      }
      this.i++;
    }
  }

  number(): void {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.i));
    if (!match) this.fail('bad number');
    this.i += match[0].length;
  }

  // Objects and arrays are scanned here, not in methods of their own: one stack frame per level
  // of nesting, so the depth at which the scan gives up stays where it was.
  value(): void {
    const text = this.text;
    this.ws();
    const ch = text[this.i];
    if (ch === undefined) this.fail('unexpected end of input');
    if (ch === '{') {
      this.i++; this.ws();
      if (text[this.i] === '}') { this.i++; return; }
      for (;;) {
        this.ws();
        if (text[this.i] !== '"') this.failHere('expected a double-quoted property name');
        this.string(); this.ws();
        if (text[this.i] !== ':') this.failHere("expected ':' after a property name");
        this.i++; this.value(); this.ws();
        if (text[this.i] === ',') { this.i++; continue; }
        if (text[this.i] === '}') { this.i++; return; }
        this.failHere("expected ',' or '}' after a property value");
      }
    }
    if (ch === '[') {
      this.i++; this.ws();
      if (text[this.i] === ']') { this.i++; return; }
      for (;;) {
        this.value(); this.ws();
        if (text[this.i] === ',') { this.i++; continue; }
        if (text[this.i] === ']') { this.i++; return; }
        this.failHere("expected ',' or ']' after an array element");
      }
    }
    if (ch === '"') return this.string();
    if (ch === 't') return this.word('true');
    if (ch === 'f') return this.word('false');
    if (ch === 'n') return this.word('null');
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number();
    this.fail('unexpected character');
  }
}

export function jsonSyntaxProblem(text: string): SyntaxProblem | undefined {
  const scan = new Scan(text);
  try {
    scan.value(); scan.ws();
    if (scan.i < text.length) scan.fail('unexpected content after the JSON value');
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.found;
    // Nesting deeper than the stack: report where the scan stood.
    if (error instanceof RangeError) return { position: scan.i, problem: 'nesting too deep' };
    throw error;
  }
}
