/**
 * Links in a query (`Closes https://github.com/o/r/issues/110`, a Stack
 * Overflow question, an image, a notebook on a binder) point somewhere
 * else: their words name a host, an owner, a repository and a number,
 * which the indexed repository holds in its build files, badges and
 * metadata (`pom.xml`'s scm URL, a README's badges, `.github/`), not in
 * the code the question is about. So a link is cut from the query before
 * parsing, except the one part that does name this repository's code: the
 * file path of a link to a file in a repository browser
 * (`…/blob/<ref>/xarray/core/merge.py#L42` keeps `xarray/core/merge.py`).
 *
 * A bare address with no page (`http://.example.com`, `http://localhost:8080/`)
 * points nowhere in particular: it is the value the question is about (the
 * URL that fails to parse), so it stays.
 */

/** A link as written: a scheme, then anything up to white space or a closing bracket or quote. */
const LINK = /\bhttps?:\/\/[^\s<>"'`()[\]{}]+/gi;
/** The file part of a repository browser's link: GitHub and Gitea `blob|tree/<ref>/`, GitLab `-/blob/<ref>/`, Bitbucket `src/<ref>/`. */
const FILE_IN_LINK = /\/(?:-\/)?(?:blob|tree|src|raw)\/[^/]+\/([^?#]+)/;
/** A link to a page: something after the host other than a lone slash. */
const HAS_PAGE = /^https?:\/\/[^/?#]+[/?#]./i;
/** Punctuation that ends a sentence after a link rather than belonging to it. */
const TRAILING = /[.,;:!?]+$/;

export interface CutLink {
  /** Offsets of the link in the input. */
  start: number;
  end: number;
  /** What replaced it: the file path it names, or '' when none. */
  kept: string;
}

export interface LinksCut {
  text: string;
  links: CutLink[];
}

/** The file path a repository browser's link names, or '' (see the module comment). */
export function filePathOfLink(link: string): string {
  const m = FILE_IN_LINK.exec(link);
  if (m === null) return '';
  let path: string;
  try {
    path = decodeURIComponent(m[1]!);
  } catch {
    path = m[1]!;
  }
  path = path.replace(/\/+$/, '');
  // A directory or a bare ref names no file.
  return /\.[A-Za-z0-9]+$/.test(path) ? path : '';
}

/** The query without its links, each replaced by the file path it names or by nothing. */
export function cutLinks(input: string): LinksCut {
  const links: CutLink[] = [];
  let text = '';
  let at = 0;
  for (const m of input.matchAll(LINK)) {
    const link = m[0].replace(TRAILING, '');
    if (!HAS_PAGE.test(link)) continue;
    const start = m.index;
    const end = start + link.length;
    const kept = filePathOfLink(link);
    text += input.slice(at, start) + kept;
    at = end;
    links.push({ start, end, kept });
  }
  if (links.length === 0) return { text: input, links };
  return { text: text + input.slice(at), links };
}
