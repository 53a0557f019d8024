// Files a person gives the page: chosen files, a chosen folder, dropped files and folders,
// and the documents inside a .zip. Each becomes {source, name, size, read()}: `source` is
// what the records call it (the path inside the dropped or chosen folder, with "/"; a
// loose file's name), `read()` its bytes, read only when the core is ready for it, so
// memory holds one file at a time. Hidden files and folders (".name") are left out, as the
// command line leaves them out of a folder.
import { SPEC } from "../spec.js";

// A .zip of documents: entry count and inflated size caps (a zip bomb stops at the caps).
export const ZIP_MAX_ENTRIES = 10_000;
export const ZIP_MAX_BYTES = 200_000_000;
const ZIP_MAX_RATIO = 200;
// Entries up to this many bytes may compress any amount (a log of repeated lines packs 650 x):
// the whole archive's cap bounds them; past it, a ratio beyond ZIP_MAX_RATIO is a bomb.
const ZIP_RATIO_FLOOR = 32_000_000;

const hidden = (path) => path.split("/").some((part) => part.startsWith(".") || part === "__MACOSX");

/** The page's size limit for a file of this name (PDF, Word and e-books take more memory per byte). */
export function limitFor(name) {
  const kind = (name.match(/\.([a-z0-9]+)$/i)?.[1] ?? "").toLowerCase();
  return SPEC.limits.document_bytes_by_kind?.[kind] ?? SPEC.limits.document_bytes;
}

const fromFile = (file, source) => ({ source, name: file.name, size: file.size, read: async () => new Uint8Array(await file.arrayBuffer()) });

/** Files from an <input type=file> (with or without webkitdirectory): folder paths lose their top folder. */
export function fromInput(list) {
  const files = [];
  for (const file of list) {
    const path = file.webkitRelativePath || file.name;
    const source = file.webkitRelativePath ? path.split("/").slice(1).join("/") : file.name;
    if (!hidden(source)) files.push(fromFile(file, source));
  }
  return files;
}

/** Files from a drop: loose files by name, folders walked (their files by path inside the folder). */
export async function fromDrop(transfer) {
  const entries = [...(transfer.items ?? [])].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return fromInput(transfer.files ?? []);
  const files = [];
  for (const entry of entries) {
    if (entry.isFile) {
      if (!hidden(entry.name)) files.push(fromFile(await fileOf(entry), entry.name));
    } else {
      await walk(entry, "", files);
    }
  }
  return files;
}

const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));

async function walk(folder, prefix, files) {
  const reader = folder.createReader();
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return;
    for (const entry of batch) {
      const path = prefix + entry.name;
      if (hidden(entry.name)) continue;
      if (entry.isFile) files.push(fromFile(await fileOf(entry), path));
      else await walk(entry, `${path}/`, files);
    }
  }
}

/** Whether a file is an archive of documents to open (a .zip; .docx and .epub are documents). */
export const isArchive = (file) => /\.zip$/i.test(file.name);

/**
 * The documents inside a .zip, as files to read one at a time (stored or deflated entries,
 * decompressed by the browser); each `source` is `prefix` and its path in the zip. Raises
 * {code, params} for a damaged zip or one past the caps.
 */
export async function fromZip(file, prefix = "") {
  const bytes = await file.read();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 65_557); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw { code: "archive_corrupt", params: { name: file.name } };
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count > ZIP_MAX_ENTRIES) throw { code: "archive_too_many_entries", params: { name: file.name, entries: count, limit: ZIP_MAX_ENTRIES } };
  const files = [];
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw { code: "archive_corrupt", params: { name: file.name } };
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const path = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extra;
    if (path.endsWith("/") || hidden(path)) continue;
    if (flags & 1) throw { code: "archive_encrypted", params: { name: file.name, entry: path } };
    if (method !== 0 && method !== 8) throw { code: "archive_method", params: { name: file.name, entry: path, method } };
    declared += size;
    if (declared > ZIP_MAX_BYTES || (size > ZIP_RATIO_FLOOR && size / Math.max(packed, 1) > ZIP_MAX_RATIO)) {
      throw { code: "archive_bomb", params: { name: file.name, ratio: ZIP_MAX_RATIO, limit: ZIP_MAX_BYTES } };
    }
    const name = path.split("/").pop();
    files.push({
      source: prefix + path,
      name,
      size,
      read: () => inflate(bytes, view, local, method, packed, size, file.name),
    });
  }
  return files;
}

async function inflate(bytes, view, local, method, packed, size, archive) {
  if (view.getUint32(local, true) !== 0x04034b50) throw { code: "archive_corrupt", params: { name: archive } };
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  const data = bytes.subarray(start, start + packed);
  if (method === 0) return data.slice();
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  const reader = stream.getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    // The entry's declared size may lie: stop at it (and at the cap), whatever the stream says.
    if (total > size || total > ZIP_MAX_BYTES) {
      reader.cancel();
      throw { code: "archive_bomb", params: { name: archive, ratio: ZIP_MAX_RATIO, limit: ZIP_MAX_BYTES } };
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Files sorted by source, as the command line walks a folder (so the JSONL is the same). */
export const bySource = (files) => files.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
