#!/usr/bin/python3
"""Writes sandbox/protobuf/k8s-api.table: every message of Kubernetes' generated.proto files
(field numbers and wire types, from protoc's descriptor set), joined with what only the Go types
say (JSON names, omitempty, pointers, inline structs, enums, custom JSON encodings), and the doc
comments the OpenAPI documents show as descriptions.

Usage: gen_table.py DESCRIPTOR_SET GOCODE_SRC VERSIONS > k8s-api.table
  DESCRIPTOR_SET  protoc --include_source_info --include_imports --descriptor_set_out output
  GOCODE_SRC      the folder holding k8s.io/api and k8s.io/apimachinery (Go sources)
  VERSIONS        one line naming the Debian packages the sources came from
scripts/k8s-api/regenerate.sh runs it; the table's format is described in
sandbox/protobuf/api_table.hpp.
"""
import os
import re
import sys

from google.protobuf import descriptor_pb2

# Go types with their own JSON encoding (MarshalJSON): the decoder knows each of them by name.
CUSTOM_JSON = {
    "k8s.io.apimachinery.pkg.apis.meta.v1.Time",
    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration",
    "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "k8s.io.apimachinery.pkg.apis.meta.v1.GroupVersion",
    "k8s.io.apimachinery.pkg.api.resource.Quantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
    "k8s.io.apimachinery.pkg.runtime.RawExtension",
    "k8s.io.apimachinery.pkg.runtime.Unknown",
}

SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT: "float",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: "int32",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: "uint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT32: "sint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64: "sint64",
}


def fail(msg):
    sys.stderr.write("gen_table: " + msg + "\n")
    sys.exit(1)


# ---- Go sources: structs with their tags, named types, enums, methods ----------------------

class GoField:
    def __init__(self, name, gotype, json, protobuf):
        self.name, self.gotype, self.json, self.protobuf = name, gotype, json, protobuf


class GoPackage:
    def __init__(self):
        self.structs = {}     # type name -> [GoField]
        self.named = {}       # type name -> underlying type text (non-struct types)
        self.enums = set()    # type names marked +enum
        self.consts = []      # (type name, value, comment)
        self.methods = {}     # type name -> {method: return text}
        self.imports = {}     # per file alias -> path, merged (aliases agree in k8s.io/api)
        self.group = None
        self.version = None


TAG_RE = re.compile(r'(\w+):"([^"]*)"')
METHOD_RE = re.compile(
    r'^func \((?:\w+\s+)?\*?(\w+)\) (MarshalJSON|OpenAPISchemaType|OpenAPISchemaFormat|'
    r'OpenAPIV3OneOfTypes)\(\)[^{]*\{(.*)$')


def comment_text(lines):
    return [l[3:] if l.startswith("// ") else l[2:] for l in lines]


def parse_go_package(folder):
    pkg = GoPackage()
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".go") or fname.endswith("_test.go"):
            continue
        if fname.startswith(("zz_generated", "generated.pb")) or "swagger_doc" in fname:
            continue
        parse_go_file(os.path.join(folder, fname), pkg)
    return pkg


def parse_go_file(path, pkg):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    comments = []
    i = 0
    in_const = False
    in_import = False
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        i += 1
        if s.startswith("//"):
            comments.append(s)
            continue
        if in_import:
            if s == ")":
                in_import = False
            else:
                m = re.match(r'(\w+)?\s*"([^"]+)"', s)
                if m:
                    pkg.imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
            continue
        if s.startswith("import ("):
            in_import = True
            comments = []
            continue
        m = re.match(r'import (\w+)?\s*"([^"]+)"', s)
        if m:
            pkg.imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
            continue
        if in_const:
            if s == ")":
                in_const = False
            else:
                m = re.match(r'(\w+)\s+(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', s)
                if m:
                    pkg.consts.append((m.group(2), m.group(3), comment_text(comments)))
            comments = []
            continue
        if s.startswith("const ("):
            in_const = True
            comments = []
            continue
        m = re.match(r'const (\w+)\s+(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', s)
        if m:
            pkg.consts.append((m.group(2), m.group(3), comment_text(comments)))
        m = re.match(r'const GroupName\s*=\s*"([^"]*)"', s)
        if m:
            pkg.group = m.group(1)
        m = re.match(r'.*GroupVersion\{Group: GroupName, Version: "([^"]+)"\}', s)
        if m:
            pkg.version = m.group(1)
        m = METHOD_RE.match(s)
        if m:
            body = m.group(3)
            while "}" not in body and i < len(lines):
                body += " " + lines[i].strip()
                i += 1
            pkg.methods.setdefault(m.group(1), {})[m.group(2)] = body
        m = re.match(r'type (\w+) struct \{(\})?', s)
        if m:
            texts = comment_text(comments)
            fields = []
            if not m.group(2):
                i = parse_struct_body(lines, i, fields)
            pkg.structs[m.group(1)] = fields
            if any(t.strip() == "+enum" for t in texts):
                pkg.enums.add(m.group(1))
        else:
            m = re.match(r'type (\w+) (.+)$', s)
            if m:
                pkg.named[m.group(1)] = m.group(2).strip()
                if any(t.strip() == "+enum" for t in comment_text(comments)):
                    pkg.enums.add(m.group(1))
        comments = []


def parse_struct_body(lines, i, fields):
    depth = 1
    while i < len(lines):
        s = lines[i].strip()
        i += 1
        if s.startswith("//") or not s:
            continue
        if s == "}" and depth == 1:
            return i
        depth += s.count("{") - s.count("}")
        if depth != 1:
            continue
        m = re.match(r'^([\w.*]+)?\s*([^`]*?)\s*`([^`]*)`', s)
        if not m:
            m2 = re.match(r'^(\w+)\s+(.+)$', s)
            if m2:
                fields.append(GoField(m2.group(1), m2.group(2), None, None))
            continue
        name, gotype, tags = m.group(1), m.group(2), dict(TAG_RE.findall(m.group(3)))
        if not gotype:  # embedded: the field's name is its type's
            gotype = name
            name = name.lstrip("*").rsplit(".", 1)[-1]
        fields.append(GoField(name, gotype, tags.get("json"), tags.get("protobuf")))
    return i


# ---- descriptions as openapi-gen writes them ----------------------------------------------

def go_comment_lines(leading):
    """protoc's leading comment of a declaration as the Go comment lines it was copied from."""
    lines = [l[1:] if l.startswith(" ") else l for l in leading.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def description(lines):
    """kube-openapi's generateDescription: lines joined by spaces, paragraphs kept, +tags and
    TODO lines dropped, indented lines on lines of their own, nothing after a line '---'."""
    out = ""
    for line in lines:
        if line == "---":
            break
        line = line.rstrip(" ")
        leading = line.lstrip(" ")
        if not line:
            out = out[:-1] + "\n\n"
        elif leading.startswith("TODO") or leading.startswith("+"):
            continue
        else:
            if line.startswith(" ") or line.startswith("\t"):
                out = out[:-1]
                line = "\n" + line + "\n"
            else:
                line += " "
            out += line
    return out.rstrip("\n").replace('\\"', '"').strip(" ")


def markers(lines):
    found = []
    for line in lines:
        s = line.strip()
        if s.startswith("+") and "=" in s:
            key, value = s[1:].split("=", 1)
            if key in ("listType", "listMapKey", "patchStrategy", "patchMergeKey", "mapType",
                       "structType", "protobuf.nullable"):
                found.append(key + "=" + value)
        elif s in ("+optional", "+required"):
            found.append(s[1:])
    return found


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


# ---- the table ---------------------------------------------------------------------------------

def go_type_ref(gotype, pkg_path, imports):
    """('k8s.io/api/core/v1', 'PullPolicy') for the named type a field's Go type names."""
    t = gotype.lstrip("*").replace("[]", "")
    if t.startswith("map["):
        return None
    if "." in t:
        alias, name = t.split(".", 1)
        return imports.get(alias), name
    return pkg_path, t


def enum_values(packages, ref):
    pkg = packages.get(ref[0])
    if not pkg or ref[1] not in pkg.enums:
        return None
    values = []
    for typename, value, comment in pkg.consts:
        if typename != ref[1]:
            continue
        text = " ".join(comment).strip()
        if text.startswith(value):
            text = text[len(value):].strip()
        text = re.sub(r"\s+", " ", text)
        for j, (v, c) in enumerate(values):
            if v == value:
                if len(c) < len(text) or (len(c) == len(text) and c > text):
                    values[j] = (value, text)
                break
        else:
            values.append((value, text))
    return sorted(values)


def main():
    if len(sys.argv) != 4:
        fail("usage: gen_table.py DESCRIPTOR_SET GOCODE_SRC VERSIONS")
    fds = descriptor_pb2.FileDescriptorSet()
    with open(sys.argv[1], "rb") as f:
        fds.ParseFromString(f.read())
    src = sys.argv[2]
    out = sys.stdout
    out.write("# The Kubernetes API's protobuf messages, with the Go types' JSON mapping and the\n")
    out.write("# descriptions of their fields. Generated by scripts/k8s-api/regenerate.sh from\n")
    out.write("# " + sys.argv[3] + "; do not edit.\n")
    out.write("# Format: sandbox/protobuf/api_table.hpp.\n")

    packages = {}
    files = [f for f in fds.file if f.package.startswith("k8s.io.")]
    for f in files:
        go_path = f.options.go_package
        packages[go_path] = parse_go_package(os.path.join(src, go_path))
    custom_seen = set()

    for f in sorted(files, key=lambda f: f.package):
        go_path = f.options.go_package
        gopkg = packages[go_path]
        if gopkg.group is not None and gopkg.version:
            out.write("P\t%s\t%s\t%s\n" % (f.package, gopkg.group, gopkg.version))
        else:
            out.write("P\t%s\t-\t-\n" % f.package)
        comments = {}
        for loc in f.source_code_info.location:
            comments[tuple(loc.path)] = loc.leading_comments
        for mi, msg in enumerate(f.message_type):
            full = f.package + "." + msg.name
            mlines = go_comment_lines(comments.get((4, mi), ""))
            mflags = [m for m in markers(mlines) if not m.startswith("protobuf.nullable")]
            struct = gopkg.structs.get(msg.name)
            underlying = gopkg.named.get(msg.name)
            if struct is None and underlying is None:
                fail("%s: no Go type %s in %s" % (full, msg.name, go_path))
            if "protobuf.nullable=true" in markers(mlines):
                if not (underlying or "").startswith("[]"):
                    fail("%s: nullable wrapper of a Go type that is not a slice" % full)
                mflags.append("wrap")
            # Kinds (and a few option types) embed TypeMeta without a protobuf field: their
            # JSON has apiVersion and kind, their protobuf form does not.
            if any(gf.gotype.rsplit(".", 1)[-1] == "TypeMeta" and not gf.protobuf
                   and "inline" in (gf.json or "").split(",")[1:] for gf in struct or []):
                mflags.append("typeMeta")
            methods = gopkg.methods.get(msg.name, {})
            if "MarshalJSON" in methods:
                if full not in CUSTOM_JSON:
                    fail("%s has its own MarshalJSON: teach the decoder its encoding" % full)
                custom_seen.add(full)
                mflags.append("custom")
            for method, key in (("OpenAPISchemaType", "openapiType"),
                                ("OpenAPISchemaFormat", "openapiFormat"),
                                ("OpenAPIV3OneOfTypes", "openapiOneOf")):
                if method in methods:
                    values = re.findall(r'"([^"]*)"', methods[method])
                    mflags.append(key + "=" + ",".join(values))
            out.write("M\t%s\t%s\t%s\n" % (full, " ".join(mflags), escape(description(mlines))))
            nested = {n.name: n for n in msg.nested_type}
            gofields = {}
            for gf in struct or []:
                if gf.protobuf and gf.protobuf != "-":
                    parts = gf.protobuf.split(",")
                    gofields[int(parts[1])] = gf
            for fi, field in enumerate(msg.field):
                flines = go_comment_lines(comments.get((4, mi, 2, fi), ""))
                flags = markers(flines)
                values = None
                if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE:
                    tname = field.type_name.lstrip(".")
                    entry = nested.get(tname.rsplit(".", 1)[-1])
                    if entry is not None and entry.options.map_entry:
                        key, value = entry.field[0], entry.field[1]
                        vt = (value.type_name.lstrip(".")
                              if value.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                              else SCALARS[value.type])
                        ftype = "map<%s,%s>" % (SCALARS[key.type], vt)
                    else:
                        ftype = tname
                else:
                    ftype = SCALARS[field.type]
                if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED \
                        and not ftype.startswith("map<"):
                    flags.append("rep")
                if struct is None or not gofields:
                    # a nullable wrapper (its one field is the slice's items), or a type whose
                    # protobuf form is written by hand (Quantity, Time): proto names
                    json_name, go_name = field.name, field.name[:1].upper() + field.name[1:]
                else:
                    gf = gofields.get(field.number)
                    if gf is None:
                        fail("%s.%s: no Go field with protobuf tag %d" %
                             (full, field.name, field.number))
                    go_name = gf.name
                    jtag = (gf.json or "").split(",")
                    json_name = jtag[0] or gf.name
                    if gf.json is None:
                        json_name = gf.name
                    if jtag[0] == "-":
                        json_name = "-"
                    if "omitempty" in jtag[1:]:
                        flags.append("omitempty")
                    if "inline" in jtag[1:]:
                        flags.append("inline")
                    if gf.gotype.startswith("*"):
                        flags.append("ptr")
                    ref = go_type_ref(gf.gotype, go_path, gopkg.imports)
                    values = enum_values(packages, ref) if ref else None
                    if values:
                        flags.append("enum")
                if values:
                    flines = flines + ["", "Possible enum values:"] + [
                        " - `%s` %s" % (go_quote(v), c) for v, c in values]
                desc = description(flines)
                out.write("F\t%d\t%s\t%s\t%s\t%s\t%s\n" % (
                    field.number, json_name, go_name, ftype, " ".join(flags), escape(desc)))
                if values:
                    for v, _ in values:
                        out.write("V\t%s\n" % escape(v))
    missing = CUSTOM_JSON - custom_seen
    if missing:
        fail("custom JSON types not found: " + ", ".join(sorted(missing)))


def go_quote(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


if __name__ == "__main__":
    main()
