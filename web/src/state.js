// state.js: a tiny signal (a value that re-renders its readers) and the
// hook to read one in a component.
import { useEffect, useState } from 'preact/hooks';

// signal holds a value; setting .value notifies the subscribers.
export function signal(v) {
  const subs = new Set();
  return {
    get value() { return v; },
    set value(n) { if (n !== v) { v = n; subs.forEach((f) => f(n)); } },
    subscribe(f) { subs.add(f); return () => subs.delete(f); },
  };
}

// useSignal re-renders the component when s changes and returns its value.
export function useSignal(s) {
  const [, set] = useState(0);
  useEffect(() => s.subscribe(() => set((n) => n + 1)), [s]);
  return s.value;
}
