#!/usr/bin/env python3
"""Prints the CLI sources a fuzz target needs: the given files of Sources/blesensor-log and, again
and again, every file there that declares a name they use, until nothing is added.

    fuzz/cli-sources.py FILE...      (paths under Sources/blesensor-log, e.g. DecodeCommand.swift)

So scripts/fuzz names only the entry points (the `decode` line parser, the rules file); a file
renamed, split or added is found by what it declares. A file "declares" its top-level types,
functions and constants, and the members of its top-level `extension` blocks (`trimmingWhitespace`
on String); a name is "used" when it appears as an identifier outside comments and string literals.
main.swift (top-level code) is never taken: a harness defines what the others need of it. A needed
file that imports a module the fuzz build does not have (the store, MQTT) is an error, named, since
the target could not link anyway.
"""
import os
import re
import sys

CLI = 'Sources/blesensor-log'
# Modules scripts/fuzz builds (or the system has) for the CLI targets.
AVAILABLE = {'Glibc', 'SensorDecode', 'AdvScanner', 'SensorReport', 'CCrypto', 'CBlueZHCI'}

DECL = re.compile(r'^(?:(?:public|internal|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*'
                  r'(?:struct|enum|class|protocol|actor|typealias|func|let|var)\s+(\w+)')
MEMBER = re.compile(r'\b(?:func|var|let|case|typealias|struct|enum|class)\s+(\w+)')
IDENT = re.compile(r'[A-Za-z_]\w*')
EXTENSION = re.compile(r'^(?:(?:public|internal|private|fileprivate)\s+)*extension\s+(\w+)')


def code_only(text):
    """`text` without comments and string literals (their contents name nothing)."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def declarations(text):
    """Top-level names, and per top-level extension the type it extends and its members."""
    names = set()
    extensions = []
    depth = 0
    for line in text.split('\n'):
        if depth == 0:
            if m := DECL.match(line):
                names.add(m.group(1))
            elif m := EXTENSION.match(line):
                extensions.append((m.group(1), set()))
            else:
                extensions.append((None, set()))
        elif depth == 1 and extensions and extensions[-1][0]:
            extensions[-1][1].update(MEMBER.findall(line))
        depth = max(0, depth + line.count('{') - line.count('}'))
    return names, [e for e in extensions if e[0]]


def needed(declared, extensions, used, cli_types):
    """Whether a file declaring these is needed by code using `used`: for an extension of one of
    the CLI's own types, a member is needed only where that type is used too (`open` on
    MQTTPublisher is not Glibc's `open`)."""
    if declared & used:
        return True
    return any((t not in cli_types or t in used) and members & used for t, members in extensions)


def main(seeds):
    files = {}
    for root, _, names in os.walk(CLI):
        for n in names:
            if n.endswith('.swift') and n != 'main.swift':
                path = os.path.join(root, n)
                with open(path, encoding='utf-8') as f:
                    code = code_only(f.read())
                imports = set(re.findall(r'^\s*import\s+(\w+)', code, flags=re.M))
                files[path] = (*declarations(code), set(IDENT.findall(code)), imports)
    chosen = []
    for s in seeds:
        path = s if s.startswith(CLI) else os.path.join(CLI, s)
        if path not in files:
            sys.exit(f'cli-sources: no {path}')
        chosen.append(path)
    cli_types = set().union(*(declared for declared, _, _, _ in files.values()))
    used = set().union(*(files[p][2] for p in chosen))
    added = True
    while added:
        added = False
        for path in sorted(files):
            declared, extensions, idents, imports = files[path]
            if path in chosen or not needed(declared, extensions, used, cli_types):
                continue
            missing = imports - AVAILABLE
            if missing:
                what = ', '.join(sorted((declared | set().union(*(m for _, m in extensions))) & used))
                sys.exit(f'cli-sources: {path} declares {what}, used by the target, but imports {", ".join(sorted(missing))}')
            chosen.append(path)
            used |= idents
            added = True
    print('\n'.join(sorted(chosen)))


if __name__ == '__main__':
    main(sys.argv[1:])
