/**
 * Bodies a real contact form posts (application/x-www-form-urlencoded, ~300–500 bytes): name, e-mail,
 * phone, company, subject, a few sentences of message, a consent checkbox and the empty honeypot.
 * Deterministic (seeded), so every run and every target gets the same bodies.
 */
export const FIRST = [
  'Jane',
  'Omar',
  'Li',
  'Sofia',
  'Kwame',
  'Ingrid',
  'Mateo',
  'Priya',
  'Tomasz',
  'Aiko',
  'Fatima',
  'Lucas',
];
export const LAST = [
  'Doe',
  'Haddad',
  'Wei',
  'Rossi',
  'Mensah',
  'Larsen',
  'García',
  'Raman',
  'Nowak',
  'Tanaka',
  'Okafor',
  'Martin',
];
export const COMPANIES = [
  'Acme Corp',
  'Northwind Traders',
  'Globex',
  'Initech',
  'Umbrella Health',
  'Blue Harbor Studio',
  'Fjord Analytics',
];
export const SUBJECTS = [
  'Question about pricing',
  'Partnership enquiry',
  'Support request',
  'Quote for a new project',
  'Feedback on the demo',
];
export const SENTENCES = [
  'Hi there, we are evaluating tools for collecting form submissions on our marketing site.',
  'Could you tell me whether the team plan includes file uploads and how long submissions are kept?',
  'We currently receive around two thousand enquiries a month and expect that to double next year.',
  'Our legal team also asked whether data can be hosted in the EU.',
  'I tried the demo yesterday and the spam filtering looked promising.',
  'Would it be possible to schedule a short call next week to discuss the details?',
  'Thanks in advance for your help, and have a great day.',
  'We would need notifications to go to a shared inbox rather than a single person.',
];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function contactFormBodies(count: number, seed = 42): string[] {
  const rand = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const bodies: string[] = [];
  while (bodies.length < count) {
    const first = pick(FIRST);
    const last = pick(LAST);
    const sentences: string[] = [];
    const n = 2 + Math.floor(rand() * 3);
    while (sentences.length < n) sentences.push(pick(SENTENCES));
    const body = new URLSearchParams({
      name: `${first} ${last}`,
      email: `${first}.${last}.${bodies.length}@example.com`.toLowerCase(),
      phone: `+1 555 ${String(1000 + Math.floor(rand() * 9000))}`,
      company: pick(COMPANIES),
      subject: pick(SUBJECTS),
      message: sentences.join(' '),
      consent: 'yes',
      _gotcha: '',
    }).toString();
    if (body.length >= 300 && body.length <= 500) bodies.push(body);
  }
  return bodies;
}

/**
 * The same bodies with an e-mail no other post has: `body(n)` is variant `n % count` with the address
 * `<first>.<last>.<n>@example.com` (for a form whose unique rule is the e-mail). Each variant is split
 * around the number once, so a post costs the load generator a concatenation.
 */
export function uniqueEmailBodies(bodies: string[]): (n: number) => string {
  const slot = '__N__';
  const parts = bodies.map((body) => {
    const params = new URLSearchParams(body);
    const local = params
      .get('email')!
      .split('@')[0]!
      .replace(/\.\d+$/, '');
    params.set('email', `${local}.${slot}@example.com`);
    const [before, after] = params.toString().split(slot) as [string, string];
    return { before, after };
  });
  return (n) => {
    const p = parts[n % parts.length]!;
    return `${p.before}${n}${p.after}`;
  };
}

/** What a browser sends along with the post (Intake stores user agent and referrer as metadata). */
export const BROWSER_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
  accept: 'application/json',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  referer: 'https://www.example.com/contact',
};
