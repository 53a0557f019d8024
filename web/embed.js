// Include this script on any page to embed ragchunk's tools:
//
//   <div data-ragchunk="calculator" data-size="512" data-overlap="64"></div>
//   <div data-ragchunk="splitter" data-by="sentences" data-size="256"></div>
//   <script src="https://YOUR-RAGCHUNK-SITE/embed.js" defer></script>
//
// Each div becomes an iframe of the tool (from the same site as this script) that resizes
// to its content. Presets (data-size="512" ...) are the tool's URL settings, its "presets"
// in web/tools/tools.json, from which build.py writes the two constants below. The frame
// only ever sends its height; text typed or dropped into it stays inside it.
(() => {
  const script = document.currentScript;
  const site = new URL(".", script ? script.src : location.href);
  // name -> {href, title}; the first is the tool of a placeholder that names none we have.
  const TOOLS = {{embed.tools}};
  const PRESETS = {{embed.presets}};
  // A frame is never taller than this, whatever it reports (a runaway layout, a bug).
  const MAX_HEIGHT = 20000;
  const frames = new Map();

  function embed(host) {
    const tool = Object.hasOwn(TOOLS, host.dataset.ragchunk ?? "") ? host.dataset.ragchunk : Object.keys(TOOLS)[0];
    const url = new URL(TOOLS[tool].href, site);
    url.searchParams.set("embed", tool);
    for (const name of PRESETS) if (host.dataset[name] !== undefined) url.searchParams.set(name, host.dataset[name]);
    const frame = document.createElement("iframe");
    frame.src = url.href;
    frame.title = host.dataset.title || TOOLS[tool].title;
    frame.loading = "lazy";
    frame.style.cssText = "width:100%;border:0;display:block;min-height:480px;";
    host.replaceChildren(frame);
    frames.set(frame.contentWindow, frame);
  }

  // Only our own frames, from our own origin, are heard, and only a height in pixels:
  // any other window of the page (another frame, an ad, the page itself) changes nothing.
  addEventListener("message", (event) => {
    const frame = frames.get(event.source);
    if (!frame || event.origin !== site.origin) return;
    const { type, height } = event.data ?? {};
    if (type === "ragchunk:height" && Number.isFinite(height) && height > 0) {
      frame.style.minHeight = "0";
      frame.style.height = `${Math.ceil(Math.min(height, MAX_HEIGHT))}px`;
    }
  });

  const start = () => document.querySelectorAll("[data-ragchunk]").forEach(embed);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
