/** A pattern with `*` for any run of characters (the engines' index and field patterns), as a regular expression over a whole string. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${body}$`);
}
