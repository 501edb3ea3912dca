// Which kind of file a path is, by its extension: the stats source names
// languages this way and the symbol index picks grammars. Called for every file
// of the work tree, so the extension is sliced by hand rather than with
// path.extname; an exact match wins, then the lower-cased one (`.PY`).

/** The table's entry for the path's extension; undefined without one (`Makefile`, `.gitignore`). */
export function byExtension<T>(table: Readonly<Record<string, T>>, rel: string): T | undefined {
  const dot = rel.lastIndexOf('.');
  if (dot <= rel.lastIndexOf('/') + 1) return undefined;
  const ext = rel.slice(dot);
  return table[ext] ?? table[ext.toLowerCase()];
}
