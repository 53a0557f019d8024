// The planner's JS mirror (web/core/budget.js) under Node, for test_budget_mirror.py's
// comparison with pycore/ragchunk/llms: budget() and planCounts() over the cases given.
//   node tests/unit/budget_mirror.mjs <input.json>
// The input is {budget: [[window, answer, fixed, k, chunk, template, input price, output price]],
// plans: [[llm, counts]]}; prints one JSON line {budget: [result], plans: [answer]}.
import { readFileSync } from "node:fs";

const [inputFile] = process.argv.slice(2);
const { budget: budgets, plans } = JSON.parse(readFileSync(inputFile, "utf8"));
// The page's file as it is served (it has no imports; web/ has no package.json saying "module").
const source = readFileSync(new URL("../../web/core/budget.js", import.meta.url), "utf8");
const mirror = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);

console.log(JSON.stringify({
  budget: budgets.map((args) => mirror.budget(...args)),
  plans: plans.map(([llm, counts]) => mirror.planCounts(llm, counts)),
}));
