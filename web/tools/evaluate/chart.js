// The chart of an evaluation, inline SVG: recall (with its 95 % interval) against tokens read
// per question, one point per setting and retriever; each retriever's frontier is a line and
// its recommended setting a ring.
import { formatNumber, t } from "../../i18n/i18n.js";
import { settingLabel } from "./table.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 320;
const PAD = { left: 56, right: 16, top: 12, bottom: 44 };

function element(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

export function drawChart(container, result) {
  const rows = result.results.filter((row) => row.recall !== null);
  if (!rows.length) {
    container.replaceChildren();
    return;
  }
  const most = Math.max(...rows.map((row) => row.tokens_read)) * 1.05 || 1;
  const x = (tokens) => PAD.left + (tokens / most) * (WIDTH - PAD.left - PAD.right);
  const y = (recall) => HEIGHT - PAD.bottom - recall * (HEIGHT - PAD.top - PAD.bottom);
  const svg = element("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "eval-chart",
    "aria-label": t("eval.chart_label") });
  const axes = element("g", { class: "axes" });
  for (const share of [0, 0.25, 0.5, 0.75, 1]) {
    axes.append(element("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(share), y2: y(share), class: "grid" }));
    axes.append(element("text", { x: PAD.left - 6, y: y(share) + 4, "text-anchor": "end" },
      t("format.percent", { n: share * 100 })));
  }
  for (let i = 0; i <= 4; i++) {
    const tokens = (most / 4) * i;
    axes.append(element("text", { x: x(tokens), y: HEIGHT - PAD.bottom + 16, "text-anchor": "middle" },
      formatNumber(Math.round(tokens))));
  }
  axes.append(element("text", { x: (WIDTH + PAD.left) / 2, y: HEIGHT - 6, "text-anchor": "middle" }, t("eval.axis_tokens")));
  axes.append(element("text", { x: 14, y: (HEIGHT - PAD.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 14 ${(HEIGHT - PAD.bottom) / 2})` }, t("eval.axis_recall")));
  svg.append(axes);
  for (const [retriever, answer] of Object.entries(result.recommendation)) {
    const mine = rows.filter((row) => row.retriever === retriever);
    const group = element("g", { class: `retriever r-${retriever}`, "data-retriever": retriever });
    const frontier = answer.frontier.map((name) => mine.find((row) => settingLabel(row) === name)).filter(Boolean);
    group.append(element("polyline", { class: "frontier", points: frontier.map((row) => `${x(row.tokens_read)},${y(row.recall)}`).join(" ") }));
    for (const row of mine) {
      const [low, high] = row.recall_interval;
      group.append(element("line", { class: "interval", x1: x(row.tokens_read), x2: x(row.tokens_read), y1: y(low), y2: y(high) }));
      const point = element("circle", { class: "point", cx: x(row.tokens_read), cy: y(row.recall), r: 4,
        "data-setting": settingLabel(row) });
      point.append(element("title", {}, `${settingLabel(row)} · ${t(`eval.name_${retriever}`)}: ${t("format.percent", { n: (row.recall * 100).toFixed(1) })}`));
      group.append(point);
      if (settingLabel(row) === answer.recommended) {
        group.append(element("circle", { class: "recommended", cx: x(row.tokens_read), cy: y(row.recall), r: 9,
          "data-setting": settingLabel(row) }));
      }
    }
    svg.append(group);
  }
  const legend = element("g", { class: "legend" });
  Object.keys(result.recommendation).forEach((retriever, i) => {
    const at = PAD.left + 8 + i * 150;
    legend.append(element("circle", { class: `point r-${retriever}`, cx: at, cy: PAD.top + 8, r: 4 }));
    legend.append(element("text", { x: at + 8, y: PAD.top + 12 }, t(`eval.name_${retriever}`)));
  });
  svg.append(legend);
  container.replaceChildren(svg);
}
