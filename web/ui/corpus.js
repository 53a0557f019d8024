// Many files into the core's workspace, one at a time, the same for every tool: a .zip is
// opened into its documents, the files go in source order (as the command line walks a
// folder), a file over the page's limit or one the core refuses is kept with its reason
// and does not stop the others. Only one file's bytes are in the page's memory at a time.
import { Cancelled } from "../core/bridge.js";
import { fixed } from "../i18n/i18n.js";
import { internalError, pageError } from "./errors.js";
import { bySource, fromZip, isArchive, limitFor } from "./files.js";

/**
 * The files with each .zip replaced by its documents (a damaged .zip stays, refused). A .zip
 * given alone reads as the folder it holds (sources are the paths inside it, as the command
 * line names a folder's files); given with other files, its documents are named after it
 * ("docs.zip/guide.md"), so that no two documents share a source.
 */
export async function expandArchives(files) {
  const expanded = [];
  for (const file of files) {
    if (!isArchive(file)) {
      expanded.push(file);
      continue;
    }
    try {
      expanded.push(...(await fromZip(file, files.length === 1 ? "" : `${file.source}/`)));
    } catch (error) {
      expanded.push({ source: file.source, name: file.name, size: file.size, refusal: { field: "file", ...error } });
    }
  }
  return bySource(expanded);
}

/**
 * Load each of `files` (ui/files.js) into the core, in order, and yield one entry per file:
 * {doc, source, name, size, chars, kind, error} (`doc` the workspace id, null when `error`
 * says why the file was not taken). `status` (ui/status.js TextStatus) shows `progressKey`
 * with {done, total, mb, all} before each file. A cancel raises core/bridge.js Cancelled.
 */
export async function* loadFiles(core, files, status, progressKey) {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const cancels = core.cancels;
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    // A cancel between two requests (the worker had answered the last) stops the run too.
    if (core.cancels !== cancels) throw new Cancelled();
    const file = files[i];
    status.show(progressKey, { done: i, total: files.length, mb: fixed(bytes / 1e6, 1), all: fixed(total / 1e6, 1) }, true);
    bytes += file.size;
    const entry = { doc: null, source: file.source, name: file.name, size: file.size, chars: 0, kind: "", error: file.refusal ?? null };
    if (!entry.error && file.size > limitFor(file.name)) {
      entry.error = pageError("file", "file_too_large_for_page", { name: file.name, size: file.size, limit: limitFor(file.name) });
    }
    if (!entry.error) {
      let data = null;
      try {
        data = await file.read();
      } catch (error) {
        entry.error = error?.code ? { field: "file", ...error } : pageError("file", "file_unreadable", { name: file.name });
      }
      if (data) {
        const answer = await core.request("load", { name: file.name, source: file.source }, data);
        if (answer.ok) Object.assign(entry, { doc: answer.result.doc, chars: answer.result.chars, kind: answer.result.kind });
        else entry.error = (answer.errors ?? [internalError(answer.internal)])[0];
        if (core.cancels !== cancels) {
          if (entry.doc) core.request("drop", { doc: entry.doc });
          throw new Cancelled();
        }
      }
    }
    yield entry;
  }
}
