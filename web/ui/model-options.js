// The embedding models' options in the menus (#model of the calculator, the "model:<id>"
// options of the splitter's #sizer): build.py writes them in English for the first paint;
// here they are said in the page's language, numbers grouped as the rest of the page.
import { SPEC } from "../spec.js";
import { quantity, show } from "../i18n/i18n.js";

/** Label each model option from the catalog; show() keeps them in step with the language. */
export function labelModelOptions() {
  for (const option of document.querySelectorAll("option[value]")) {
    const sizer = option.value.startsWith("model:");
    const model = SPEC.models.find((m) => m.id === (sizer ? option.value.slice(6) : option.value));
    if (!model || (!sizer && option.parentElement?.id !== "model")) continue;
    const limit = quantity("tokens", model.limit);
    if (sizer) show(option, "model.option_sizer", { model: model.id, tokenizer: model.tokenizer, limit });
    else show(option, "model.option_calc", { model: model.id, limit, dims: quantity("dimensions", model.dimensions) });
  }
}
