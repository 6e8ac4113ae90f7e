"""The flashmlir package's import graph: layers that import only downward.

    import_layers.py PACKAGE_DIR

parses every module of PACKAGE_DIR (python/flashmlir) with `ast`, takes its
imports of the package's own modules, at module level and inside functions
alike, and fails (exit 1, a line per fault) on

  * a cycle among the modules;
  * a module importing from its own layer or one above it (LAYERS);
  * a module that LAYERS does not place (a new module names its layer);
  * an import of the package's own modules inside a function, except of an
    OPTIONAL module (one that may be absent): imports that wait for a call
    are how cycles hide. Imports of torch or the standard library inside a
    function are not the package's and are not looked at.

`from . import X` is an edge to module X where X is one, else to
`__init__` (a name the package re-exports): so a module below `__init__`
that takes a name from the package is an upward import. Prints the edges,
one module a line, then "layers: ok".
"""

import ast
import os
import sys

PACKAGE = "flashmlir"

# Bottom to top. A module imports only modules of the layers below its own.
LAYERS = [
    ["errors", "_install_paths"],        # FlashError; the paths setup.py writes
    ["mods", "blockmask", "runtime"],    # regions; BlockMask; the ctypes binding
    ["variants"],                        # Variant, Combine (names, MLIR)
    ["cache"],                           # the kernel cache, the default cache and chip
    ["combine"],                         # combine(), the merge of partials
    ["ops"],                             # flashmlir.attention, the PyTorch operator
    ["distributed"],                     # ring attention
    ["__init__"],                        # re-exports, the operator's registration
    ["__main__"],                        # python3 -m flashmlir
]
# Written at install time (setup.py): absent in a source checkout.
OPTIONAL = {"_install_paths"}

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def imports(tree, modules):
    """[(target module, line, inside a function)] of the package's own
    modules that `tree` (a module of the package) imports."""
    found = []

    def target(name):
        # `from . import name`: a module of the package, else a name of __init__.
        return name if name in modules else "__init__"

    def visit(node, in_function):
        if isinstance(node, ast.ImportFrom):
            if node.level > 1:
                found.append(("..", node.lineno, in_function))
            elif node.level == 1 or (node.module or "").split(".")[0] == PACKAGE:
                # The module path below the package: "" for the package itself.
                if node.level == 1:
                    path = node.module or ""
                else:
                    path = node.module[len(PACKAGE) + 1:]
                if path:
                    found.append((path.split(".")[0], node.lineno, in_function))
                else:
                    for alias in node.names:
                        found.append((target(alias.name), node.lineno, in_function))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == PACKAGE:
                    found.append((parts[1] if len(parts) > 1 else "__init__", node.lineno,
                                  in_function))
        in_function = in_function or isinstance(node, FUNCTIONS)
        for child in ast.iter_child_nodes(node):
            visit(child, in_function)

    visit(tree, False)
    return found


def cycles(graph):
    """[(component, cycle)]: each strongly connected component of `graph`
    (module -> set of modules) that has a cycle, and a shortest cycle (a
    list of modules, first = last) through its first module."""
    found = []
    done = set()
    for start in sorted(graph):
        if start in done:
            continue
        # The modules `start` reaches, and those of them that reach it back.
        reach, todo = set(), [start]
        while todo:
            for n in graph.get(todo.pop(), ()):
                if n not in reach:
                    reach.add(n)
                    todo.append(n)
        if start not in reach:
            continue
        component = {m for m in reach if m == start or start in _reaches(graph, m)}
        done |= component
        # A shortest way back to `start` inside the component.
        paths, todo = {start: [start]}, [start]
        while todo:
            m = todo.pop(0)
            for n in sorted(graph.get(m, ())):
                if n == start:
                    found.append((sorted(component), paths[m] + [start]))
                    todo = []
                    break
                if n in component and n not in paths:
                    paths[n] = paths[m] + [n]
                    todo.append(n)
    return found


def _reaches(graph, m):
    seen, todo = set(), [m]
    while todo:
        for n in graph.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def main(package_dir):
    files = sorted(f for f in os.listdir(package_dir) if f.endswith(".py"))
    modules = {f[:-3] for f in files} | OPTIONAL
    layer = {m: i for i, names in enumerate(LAYERS) for m in names}
    faults = []
    graph = {}
    for f in files:
        m = f[:-3]
        with open(os.path.join(package_dir, f)) as fh:
            tree = ast.parse(fh.read(), filename=f)
        if m not in layer:
            faults.append(f"{f}: not in LAYERS: give the module its layer")
        graph[m] = set()
        for dep, line, in_function in imports(tree, modules):
            where = f"{f}:{line}"
            if dep == "..":
                faults.append(f"{where}: imports from outside the package (relative level > 1)")
                continue
            graph[m].add(dep)
            if dep not in modules:
                faults.append(f"{where}: imports {dep}, which is no module of the package")
            if in_function and dep not in OPTIONAL:
                faults.append(f"{where}: imports {dep} inside a function; import it at the "
                              "top (a lower layer), or move the code")
            if m in layer and dep in layer and layer[dep] >= layer[m]:
                how = "its own layer" if layer[dep] == layer[m] else "a higher layer"
                faults.append(f"{where}: {m} (layer {layer[m]}) imports {dep}, {how} "
                              f"(layer {layer[dep]})")
    for component, cycle in cycles(graph):
        faults.append("cycle: " + " -> ".join(cycle) +
                      (f" (the modules importing each other: {', '.join(component)})"
                       if len(component) > 2 else ""))
    faults = list(dict.fromkeys(faults))  # `from . import a, b`: one line a fault
    for m in sorted(graph, key=lambda m: (layer.get(m, -1), m)):
        print(f"{m}: {' '.join(sorted(graph[m])) or '-'}")
    for fault in faults:
        print("FAULT:", fault)
    print("layers: ok" if not faults else f"layers: {len(faults)} fault(s)")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
