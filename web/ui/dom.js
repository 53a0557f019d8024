// What every page module needs from the DOM and the clock.

export const $ = (id) => document.getElementById(id);

/** `action` after `ms` of quiet; `.now()` runs it at once and drops the pending call. */
export function debounce(action, ms) {
  let timer = 0;
  const run = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), ms);
  };
  run.now = (...args) => {
    clearTimeout(timer);
    action(...args);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}
