// The one shape of an answer that can be a refusal, in every layer (owner input, article dates, an import, a page an
// agent asks for, a build worker, the standby's health): `ok` says which, the rest is the value or why not, in words
// a person reads (`problem`, or `errors` where there can be many). Callers test `ok`, never which keys are present.
export type Result<T extends object, Refusal extends object = { problem: string }> =
  ({ ok: true } & T) | ({ ok: false } & Refusal);
