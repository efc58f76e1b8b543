/**
 * Replaces the given directories in a message by `<data>`: an engine error about a part or a
 * table may name its file, and where the service keeps its files is not the data team's to
 * know. Longest first, so a directory inside another is replaced whole.
 */
export function hidePaths(dirs: readonly string[]): (text: string) => string {
  const paths = [...new Set(dirs.map((d) => d.replace(/\/+$/, '')))].filter((d) => d.length > 1).sort((a, b) => b.length - a.length);
  return (text) => paths.reduce((out, dir) => out.split(dir).join('<data>'), text);
}
