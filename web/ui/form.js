// What the tools' forms share with the core's readers of typed values.
import { decimalComma } from "../i18n/i18n.js";

/** The typed numbers of a form follow the language: "12,5" is 12.5 in Russian. */
export const numberOptions = () => ({ decimal_comma: decimalComma() });
