// money.js: how the UI writes amounts of money and counts of tokens:
// "¥0.0021", "$1.50", "12.3k". Pure functions, no words: the pages add
// those (i18n.js). Unit tested by test/money.test.mjs.

const symbols = { CNY: '¥', RMB: '¥', USD: '$', EUR: '€', GBP: '£' };

// money writes amount in currency (ISO 4217): "¥0.0021", "$1.50",
// "12.00 CHF". At least 1 it has two decimals; below, two significant
// digits (float noise such as 0.0033000000000001 goes), and under a
// millionth it reads "<¥0.000001". An amount with no currency is not
// a price anyone knows: money then returns '' (the caller says
// "unpriced"), never a made-up zero.
export function money(amount, currency) {
  if (!currency || typeof amount !== 'number' || !Number.isFinite(amount)) return '';
  const code = currency.toUpperCase();
  const a = Math.abs(amount);
  let digits;
  if (a === 0) digits = '0.00';
  else if (a >= 1) digits = a.toFixed(2);
  else if (a < 0.000001) return '<' + wrap(code, '0.000001');
  else {
    digits = plain(Number(a.toPrecision(2)));
    const dot = digits.indexOf('.');
    if (dot < 0 || digits.length - dot - 1 < 2) digits = Number(digits).toFixed(2);
  }
  return (amount < 0 ? '-' : '') + wrap(code, digits);
}

// price writes a price per million tokens in currency, as exact as it
// is given but without float noise or trailing zeros: "¥0.2", "$0.075",
// "¥2". An unknown currency is read as USD, as llm.Price does.
export function price(amount, currency) {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return '';
  return (amount < 0 ? '-' : '') + wrap((currency || 'USD').toUpperCase(), plain(Number(Math.abs(amount).toPrecision(6))));
}

// tokens writes a count of tokens short: 950, 1.2k, 12.3k, 123k, 1.2M.
export function tokens(n) {
  const v = Math.max(0, Math.round(Number(n) || 0));
  if (v < 1000) return String(v);
  if (v < 999500) return short(v / 1000) + 'k';
  return short(v / 1e6) + 'M';
}

// usageOf reads the usage of an answer from a turn.finished event's
// usage ({prompt_tokens, completion_tokens, cached_tokens, cost,
// currency}) or a trace's ({usage: {input_tokens, output_tokens,
// cached_tokens}, cost: {amount, currency}}): {input, cached, output,
// cost, currency}, cost and currency empty when the price is unknown.
// null when there is nothing to show.
export function usageOf(ev, trace) {
  let u = null;
  if (ev) {
    u = { input: ev.prompt_tokens || 0, cached: ev.cached_tokens || 0, output: ev.completion_tokens || 0,
      cost: typeof ev.cost === 'number' && ev.currency ? ev.cost : null, currency: ev.cost != null ? ev.currency || '' : '' };
  } else if (trace && trace.usage) {
    const c = trace.cost;
    u = { input: trace.usage.input_tokens || 0, cached: trace.usage.cached_tokens || 0, output: trace.usage.output_tokens || 0,
      cost: c && c.currency ? c.amount : null, currency: c && c.currency ? c.currency : '' };
  }
  if (!u || (!u.input && !u.output)) return null;
  if (u.cost === null) u.currency = '';
  return u;
}

// short writes x (1 to 999.x) with one decimal below 100, none above.
function short(x) {
  if (x >= 99.95) return String(Math.round(x));
  return plain(Number(x.toFixed(1)));
}

// plain writes x without an exponent.
function plain(x) {
  const s = String(x);
  if (!/e/i.test(s)) return s;
  return x.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
}

// wrap puts the currency's symbol before digits, or its code after.
function wrap(code, digits) {
  const sym = symbols[code];
  return sym ? sym + digits : digits + ' ' + code;
}

// peakHours describes a pricing's peak (ProviderModel.pricing.peak):
// its multiplier, its hours ("9–12, 14–18"), whether it is on weekdays
// only (Monday to Friday), and its zone ("UTC+8"); null without one.
export function peakHours(peak) {
  if (!peak || !(peak.multiplier > 0)) return null;
  const hours = (peak.hours || []).map(([a, b]) => `${a}–${b}`).join(', ');
  const days = [...(peak.weekdays || [])].sort().join(',');
  const off = peak.utcOffsetMinutes || 0;
  const abs = Math.abs(off);
  const zone = 'UTC' + (off < 0 ? '−' : '+') + Math.floor(abs / 60) + (abs % 60 ? ':' + String(abs % 60).padStart(2, '0') : '');
  return { x: peak.multiplier, hours, weekdays: days === '1,2,3,4,5', zone };
}

