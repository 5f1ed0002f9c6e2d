/* escape.h - data made inert for the medium it is written to, one
 * function per medium (tools/escape.c); every tool's output of a string
 * that comes from a result file (a region, host, event, node or file name,
 * a command line, a reason) goes through one of them.
 *
 *   HTML      & < > " ' as entities: safe in text and in attribute values
 *             quoted with " or '.
 *   terminal  C0 controls (newline and tab too), DEL, C1 controls (U+0080
 *             to U+009F) and bytes that are not UTF-8 as \xNN (C1: \u00NN),
 *             a backslash as \\: no ESC, OSC or CSI reaches the terminal,
 *             and one string stays on one line.
 *   CSV       RFC 4180: a cell holding the separator, a quote, CR or LF is
 *             quoted with quotes doubled; a text cell starting with = + - @
 *             TAB or CR gets a leading ' (OWASP, CSV injection) and is
 *             quoted.  Numbers are not text cells: they are written as
 *             they are, a negative one stays a number.
 *   markdown  the terminal's escapes, then HTML's, then \ ` * _ [ ] | ~
 *             with a backslash: no markup, no link, no table cell split.
 */
#ifndef HPCSHIM_TOOLS_ESCAPE_H
#define HPCSHIM_TOOLS_ESCAPE_H

#include <stdio.h>

void esc__html(FILE *f, const char *s);
void esc__term(FILE *f, const char *s);
void esc__csv(FILE *f, const char *s, const char *sep);
void esc__md(FILE *f, const char *s);

/* The same as new strings (malloc'd; s itself copied when nothing needs
 * escaping). */
char *esc__term_dup(const char *s);
char *esc__md_dup(const char *s);

/* s escaped for a terminal, for a printf argument: s itself when nothing
 * needs escaping, else one of 8 buffers used in turn (valid until the 8th
 * call after). */
const char *esc__t(const char *s);

#endif
