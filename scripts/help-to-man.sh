#!/usr/bin/env bash
# Writes a manual page (man(7) roff) on stdout from a command's own `--help`, for the commands
# that do not use swift-argument-parser (whose manuals come from its generate-manual tool).
# Usage: help-to-man.sh EXECUTABLE NAME VERSION
# Read as swift-argument-parser lays out help: "OVERVIEW: what it does" (the NAME line), then
# paragraphs (DESCRIPTION, put after the synopsis), "USAGE: …" (SYNOPSIS), and sections "TITLE:" whose lines are kept as
# they are laid out.
set -euo pipefail
executable=$1 name=$2 version=$3
help=$("$executable" --help)
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
printf '%s\n' "$help" | awk -v name="$name" -v upper="$upper" -v version="$version" -v date="$date" '
function escape(line) {
    gsub(/\\/, "\\e", line)
    gsub(/-/, "\\-", line)
    if (line ~ /^[.\x27]/) line = "\\&" line
    return line
}
NR == 1 {
    summary = $0
    sub(/^OVERVIEW: */, "", summary)
    printf ".TH %s 1 \"%s\" \"MI %s\" \"MI manual\"\n", upper, date, version
    printf ".SH NAME\n%s \\- %s\n", name, escape(summary)
    next
}
/^USAGE: / {
    usage = $0
    sub(/^USAGE: */, "", usage)
    printf ".SH SYNOPSIS\n.B %s\n", escape(usage)
    if (description != "") printf ".SH DESCRIPTION\n%s", description
    section = "usage"
    blank = 0
    next
}
/^[A-Z][A-Z ]*:$/ {
    if (preformatted) { print ".fi"; preformatted = 0 }
    title = $0
    sub(/:$/, "", title)
    printf ".SH %s\n.nf\n", title
    preformatted = 1
    next
}
/^$/ {
    if (preformatted) { print ".fi"; preformatted = 0 }
    blank = 1
    next
}
{
    # The paragraphs before USAGE are the description, printed after the synopsis.
    if (section == "" || section == "text") {
        if (section == "text" && blank) description = description ".PP\n"
        description = description escape($0) "\n"
        section = "text"
    } else {
        if (!preformatted && blank) print ".PP"
        print escape($0)
    }
    blank = 0
}
END { if (preformatted) print ".fi" }
'
