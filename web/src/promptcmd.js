// promptcmd.js: reading a prompt command typed in the composer,
// /<plugin>:<name> followed by its arguments as name=value or in declared
// order (the rules of the terminal's internal/channel/terminal/prompts.go).
// No DOM here: test/promptcmd.test.mjs runs it under node.

// command is the composer command of prompt p.
export function command(p) { return '/' + p.plugin + ':' + p.name; }

// isPromptWord reports whether word looks like /<plugin>:<name>.
export function isPromptWord(word) {
  const m = /^\/([^\s:]+):(\S+)$/.exec(word || '');
  return !!m;
}

// splitWords splits line at white space; "double" or 'single' quotes keep
// spaces in a word (in double quotes \" and \\ escape). It throws on an
// unclosed quote.
export function splitWords(line) {
  const words = [];
  let cur = '', inWord = false;
  const rs = Array.from(line);
  for (let i = 0; i < rs.length; i++) {
    const r = rs[i];
    if (r === '"' || r === "'") {
      inWord = true;
      let j = i + 1;
      for (; j < rs.length && rs[j] !== r; j++) {
        if (r === '"' && rs[j] === '\\' && j + 1 < rs.length && (rs[j + 1] === '"' || rs[j + 1] === '\\')) j++;
        cur += rs[j];
      }
      if (j === rs.length) throw new Error('unclosed quote ' + r);
      i = j;
    } else if (/\s/.test(r)) {
      if (inWord) { words.push(cur); cur = ''; inWord = false; }
    } else {
      inWord = true;
      cur += r;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

// bindArguments gives words to p's arguments: name=value sets a declared
// argument; other words fill the rest in declared order, and words past
// the last join it with spaces. It throws when p takes no more.
export function bindArguments(p, words) {
  const args = {};
  const names = (p.arguments || []).map((a) => a.name);
  const positional = [];
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq > 0 && names.includes(w.slice(0, eq))) args[w.slice(0, eq)] = w.slice(eq + 1);
    else positional.push(w);
  }
  const free = names.filter((n) => !(n in args));
  if (positional.length && !free.length) throw new Error(command(p) + ': too many arguments');
  for (let i = 0; i < positional.length; i++) {
    if (i >= free.length - 1) { args[free[free.length - 1]] = positional.slice(i).join(' '); break; }
    args[free[i]] = positional[i];
  }
  return args;
}

// parse reads line as a prompt command among prompts: null when its first
// word names none of them; else {prompt, args} or {prompt, error}.
export function parse(line, prompts) {
  const first = (line.trim().split(/\s/)[0]) || '';
  if (!isPromptWord(first)) return null;
  const prompt = (prompts || []).find((p) => command(p) === first);
  if (!prompt) return null;
  try {
    return { prompt, args: bindArguments(prompt, splitWords(line.trim()).slice(1)) };
  } catch (e) {
    return { prompt, error: e.message };
  }
}

// missing is the names of p's required arguments args lacks (or leaves
// blank).
export function missing(p, args) {
  return (p.arguments || []).filter((a) => a.required && !String(args[a.name] ?? '').trim()).map((a) => a.name);
}

// matches is the prompts the menu offers while text is typed: text is one
// word starting with /, and a prompt's command starts with it (first) or
// holds it (after), ignoring case.
export function matches(text, prompts) {
  if (!text.startsWith('/') || /\s/.test(text)) return [];
  const q = text.toLowerCase();
  const all = prompts || [];
  const pre = all.filter((p) => command(p).toLowerCase().startsWith(q));
  const mid = all.filter((p) => !pre.includes(p) && command(p).toLowerCase().includes(q.slice(1)));
  return [...pre, ...mid];
}
