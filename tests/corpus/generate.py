#!/usr/bin/env python3
"""Writes the XML-RPC reader corpus: tests/corpus/valid/ and tests/corpus/invalid/.

This script is the source of the corpus; its output is checked in. Run it after editing a case:

    python3 tests/corpus/generate.py          # rewrite every file
    python3 tests/corpus/generate.py --check  # fail if a checked-in file differs

Also copies the documents of at most 4 KiB to tests/fuzz/corpus/ as the fuzzers' seeds.

valid/NAME.xml   a document the reader must accept
valid/NAME.json  the decoded message in the JSON form of tools/json_form.hpp
invalid/NAME.xml    a document the reader must refuse
invalid/NAME.expect one line `CODE words`: the interop fault code, then what the error message
                    must contain (case-insensitive); `a|b` means "a or b".

Each document is also checked with Python's expat binding as the file is written: every valid
file and every invalid file whose code is -32700 or -32702 must get the answer expat gives
(valid: well formed; -32700/-32702: not well formed), so a mistake in a case shows up here.
Python's own xmlrpc.client.loads cross-checks the expected values where it understands the
document (--crosscheck prints where it disagrees; those are informative, not errors: Python is
lenient in places and keeps dateTime as text).
"""

import base64
import json
import os
import sys
import xmlrpc.client

HERE = os.path.dirname(os.path.abspath(__file__))

VALID = {}  # name -> (bytes, expected JSON object)
INVALID = {}  # name -> (bytes, code, words)

NOT_WELL_FORMED = -32700
UNSUPPORTED_ENCODING = -32701
INVALID_CHARACTER = -32702
NOT_XMLRPC = -32600

APACHE_NS = b'http://ws.apache.org/xmlrpc/namespaces/extensions'


# ---- the JSON form ---------------------------------------------------------------------------

def I8(n):
    return {"$i8": n}


def D(x):
    return {"$double": float(x)}


def DT(text):
    return {"$dateTime": text}


def B64(data):
    return {"$base64": base64.b64encode(data).decode("ascii")}


def call(name, *params):
    return {"methodName": name, "params": list(params)}


def resp(value):
    return {"result": value}


def fault(code, string):
    return {"fault": {"faultCode": code, "faultString": string}}


# ---- document builders -----------------------------------------------------------------------

DECL = b'<?xml version="1.0"?>'


def as_bytes(x):
    return x if isinstance(x, bytes) else x.encode("utf-8")


def C(*values, method=b"t", decl=DECL, root_attrs=b""):
    """A call whose parameters are the given <value> contents."""
    params = b"".join(b"<param><value>" + as_bytes(v) + b"</value></param>" for v in values)
    return (decl + b"<methodCall" + root_attrs + b"><methodName>" + as_bytes(method) +
            b"</methodName><params>" + params + b"</params></methodCall>")


def R(value, decl=DECL, root_attrs=b""):
    """A response whose result is the given <value> content."""
    return (decl + b"<methodResponse" + root_attrs + b"><params><param><value>" + as_bytes(value) +
            b"</value></param></params></methodResponse>")


def F(members, decl=DECL):
    """A fault whose struct holds the given <member> contents."""
    body = b"".join(b"<member>" + as_bytes(m) + b"</member>" for m in members)
    return (decl + b"<methodResponse><fault><value><struct>" + body +
            b"</struct></value></fault></methodResponse>")


def EX(values):
    """A call with the Apache extensions namespace declared as ex."""
    return C(*values, root_attrs=b' xmlns:ex="' + APACHE_NS + b'"')


def valid(name, doc, expected):
    assert name not in VALID and name not in INVALID, name
    VALID[name] = (as_bytes(doc), expected)


def invalid(name, doc, code, words):
    assert name not in VALID and name not in INVALID, name
    INVALID[name] = (as_bytes(doc), code, words)


def nest(kind, depth, inner=b"<int>1</int>"):
    """`depth` nested arrays or structs (kind "array", "struct" or "mixed") around `inner`."""
    out = inner
    for level in range(depth):
        use = kind if kind != "mixed" else ("array" if level % 2 == 0 else "struct")
        if use == "array":
            out = b"<array><data><value>" + out + b"</value></data></array>"
        else:
            out = b"<struct><member><name>k</name><value>" + out + b"</value></member></struct>"
    return out


def nest_json(kind, depth, inner=1):
    out = inner
    for level in range(depth):
        use = kind if kind != "mixed" else ("array" if level % 2 == 0 else "struct")
        out = [out] if use == "array" else {"k": out}
    return out


# ---- valid: scalars --------------------------------------------------------------------------

valid("int_basic", C("<int>42</int>"), call("t", 42))
valid("i4_negative", C("<i4>-7</i4>"), call("t", -7))
valid("int_plus_sign", C("<int>+42</int>", "<i4>+0</i4>", "<int>-0</int>"), call("t", 42, 0, 0))
valid("int_leading_zeros", C("<int>-000123</int>", "<i4>007</i4>", "<int>+0000</int>"),
      call("t", -123, 7, 0))
valid("int_many_leading_zeros", C("<int>00000000000000000000000000000000000042</int>"),
      call("t", 42))
valid("int_limits", C("<int>2147483647</int>", "<int>-2147483648</int>", "<i4>2147483647</i4>",
                      "<i4>-2147483648</i4>"),
      call("t", 2147483647, -2147483648, 2147483647, -2147483648))
valid("i8_basic", C("<i8>1</i8>", "<i8>-5000000000</i8>", "<i8>+0012</i8>"),
      call("t", I8(1), I8(-5000000000), I8(12)))
valid("i8_limits", C("<i8>9223372036854775807</i8>", "<i8>-9223372036854775808</i8>"),
      call("t", I8(9223372036854775807), I8(-9223372036854775808)))
valid("scalar_whitespace_trimmed",
      C("<int> 42 </int>", "<i4>\t-1\n</i4>", "<i8>\r\n 9\r\n</i8>", "<boolean> 1 </boolean>",
        "<double>\n 1.5 \n</double>", "<dateTime.iso8601> 19980717T14:08:55 </dateTime.iso8601>"),
      call("t", 42, -1, I8(9), True, D(1.5), DT("19980717T14:08:55")))
# rtorrent pretty-prints every integer like this.
valid("rtorrent_i8_pretty",
      b'<?xml version="1.0" encoding="UTF-8"?>\n<methodResponse>\n<params>\n<param><value><i8>\n'
      b' 0\n </i8></value></param>\n</params>\n</methodResponse>\n',
      resp(I8(0)))
valid("rtorrent_multicall_response",
      b'<?xml version="1.0" encoding="UTF-8"?>\n<methodResponse>\n<params>\n<param><value><array>'
      b'<data>\n<value><array><data>\n<value><i8>\n 1\n </i8></value>\n</data></array></value>\n'
      b'<value><array><data>\n<value><string>ubuntu.iso</string></value>\n</data></array></value>\n'
      b'<value><struct>\n<member><name>faultCode</name>\n<value><i8>\n -506\n </i8></value></member>\n'
      b'<member><name>faultString</name>\n<value><string>Method \'x\' not defined</string></value>'
      b'</member>\n</struct></value>\n</data></array></value></param>\n</params>\n</methodResponse>\n',
      resp([[I8(1)], ["ubuntu.iso"], {"faultCode": I8(-506), "faultString": "Method 'x' not defined"}]))
valid("boolean", C("<boolean>0</boolean>", "<boolean>1</boolean>"), call("t", False, True))
valid("double_basic", C("<double>1.5</double>", "<double>-0.25</double>", "<double>+3.0</double>",
                        "<double>0.1</double>", "<double>42</double>", "<double>000.500</double>"),
      call("t", D(1.5), D(-0.25), D(3.0), D(0.1), D(42), D(0.5)))
# The spec: "any number of numeric characters, followed by a period and any number of numeric
# characters": either side of the point may be empty.
valid("double_empty_side", C("<double>5.</double>", "<double>.5</double>", "<double>-.5</double>"),
      call("t", D(5.0), D(0.5), D(-0.5)))
valid("double_exponents", C("<double>1e+100</double>", "<double>1E-5</double>",
                            "<double>-2.5e3</double>", "<double>1e0</double>",
                            "<double>6.02214076E+23</double>"),
      call("t", D(1e100), D(1e-5), D(-2500.0), D(1.0), D(6.02214076e23)))
valid("double_negative_zero", C("<double>-0.0</double>"), call("t", D(-0.0)))
valid("double_extremes", C("<double>1.7976931348623157e+308</double>",
                           "<double>2.2250738585072014e-308</double>", "<double>5e-324</double>",
                           "<double>-1.7976931348623157e+308</double>"),
      call("t", D(1.7976931348623157e308), D(2.2250738585072014e-308), D(5e-324),
           D(-1.7976931348623157e308)))
# Too small for a double: zero, keeping the sign, however it is written (leading zeros too).
valid("double_underflow", C("<double>1e-400</double>", "<double>-1e-400</double>",
                            "<double>" + "0" * 400 + "1e-330</double>",
                            "<double>0.0001e-400</double>"),
      call("t", D(0.0), D(-0.0), D(0.0), D(0.0)))
valid("double_long_mantissa", C("<double>3.14159265358979323846264338327950288</double>",
                                "<double>0.30000000000000004</double>"),
      call("t", D(3.141592653589793), D(0.30000000000000004)))
valid("nil", C("<nil/>", "<nil></nil>"), call("t", None, None))
valid("string_basic", C("<string>hello, world</string>"), call("t", "hello, world"))
valid("untyped_value", C("hello"), call("t", "hello"))
valid("untyped_value_whitespace_kept", C("  hi  there\t"), call("t", "  hi  there\t"))
# A <value> with no element inside is a string, whatever its text: whitespace too.
valid("untyped_value_whitespace_only", C(" \n "), call("t", " \n "))
valid("string_whitespace_kept", C("<string>  a \t b \n </string>"), call("t", "  a \t b \n "))
valid("empty_values",
      C("<string/>", "<string></string>", "", "<array><data/></array>",
        "<array><data></data></array>", "<struct/>", "<struct></struct>", "<base64/>",
        "<base64></base64>"),
      call("t", "", "", "", [], [], {}, {}, B64(b""), B64(b"")))
valid("empty_value_selfclosing",
      DECL + b"<methodCall><methodName>t</methodName><params><param><value/></param>"
      b"<param><value/></param></params></methodCall>",
      call("t", "", ""))

# ---- valid: Apache extensions ----------------------------------------------------------------

valid("ex_integers", EX(["<ex:i1>-128</ex:i1>", "<ex:i2>32767</ex:i2>",
                         "<ex:i8>9007199254740993</ex:i8>", "<ex:i1>+7</ex:i1>"]),
      call("t", -128, 32767, I8(9007199254740993), 7))
valid("ex_nil", EX(["<ex:nil/>", "<ex:nil></ex:nil>"]), call("t", None, None))
valid("ex_float", EX(["<ex:float>1.5</ex:float>", "<ex:float>-2.25E2</ex:float>"]),
      call("t", D(1.5), D(-225.0)))
valid("apache_response",
      b'<?xml version="1.0" encoding="UTF-8"?><methodResponse xmlns:ex="' + APACHE_NS +
      b'"><params><param><value><struct><member><name>id</name><value><ex:i8>4294967296</ex:i8>'
      b'</value></member><member><name>parent</name><value><ex:nil/></value></member></struct>'
      b'</value></param></params></methodResponse>',
      resp({"id": I8(4294967296), "parent": None}))
# Apache sends the Java exception serialised as faultCause: accepted and ignored (CVE-2019-17570).
valid("apache_fault_cause",
      b'<?xml version="1.0" encoding="UTF-8"?><methodResponse xmlns:ex="' + APACHE_NS +
      b'"><fault><value><struct><member><name>faultCode</name><value><i4>0</i4></value></member>'
      b'<member><name>faultString</name><value>Failed to invoke method x</value></member>'
      b'<member><name>faultCause</name><value><base64>rO0ABXNyABNqYXZhLmxhbmcuRXhjZXB0aW9u0P0f'
      b'Pho7HMQCAAB4cgATamF2YS5sYW5nLlRocm93YWJsZdXGNSc5d7jLAwAA</base64></value></member>'
      b'</struct></value></fault></methodResponse>',
      fault(0, "Failed to invoke method x"))

# ---- valid: dateTime -------------------------------------------------------------------------

valid("datetime_basic", C("<dateTime.iso8601>19980717T14:08:55</dateTime.iso8601>"),
      call("t", DT("19980717T14:08:55")))
valid("datetime_dokuwiki", R("<dateTime.iso8601>2014-11-10T23:38:51+0000</dateTime.iso8601>"),
      resp(DT("20141110T23:38:51+00:00")))
valid("datetime_wordpress_z", R("<dateTime.iso8601>20240102T03:04:05Z</dateTime.iso8601>"),
      resp(DT("20240102T03:04:05Z")))
valid("datetime_no_colons", C("<dateTime.iso8601>20180222T130252</dateTime.iso8601>"),
      call("t", DT("20180222T13:02:52")))
valid("datetime_fraction", C("<dateTime.iso8601>20240102T03:04:05.123456</dateTime.iso8601>",
                             "<dateTime.iso8601>20240102T03:04:05.5</dateTime.iso8601>",
                             "<dateTime.iso8601>20240102T03:04:05.123456789</dateTime.iso8601>",
                             "<dateTime.iso8601>20240102T03:04:05.000000</dateTime.iso8601>"),
      call("t", DT("20240102T03:04:05.123456"), DT("20240102T03:04:05.5"),
           DT("20240102T03:04:05.123456789"), DT("20240102T03:04:05.000000")))
valid("datetime_offsets", C("<dateTime.iso8601>20240102T03:04:05+05:30</dateTime.iso8601>",
                            "<dateTime.iso8601>20240102T03:04:05-0800</dateTime.iso8601>",
                            "<dateTime.iso8601>20240102T03:04:05+00</dateTime.iso8601>",
                            "<dateTime.iso8601>1998-07-17T14:08:55.5Z</dateTime.iso8601>",
                            "<dateTime.iso8601>2024-01-02T03:04:05-00:30</dateTime.iso8601>"),
      call("t", DT("20240102T03:04:05+05:30"), DT("20240102T03:04:05-08:00"),
           DT("20240102T03:04:05+00:00"), DT("19980717T14:08:55.5Z"),
           DT("20240102T03:04:05-00:30")))
valid("datetime_calendar_edges", C("<dateTime.iso8601>20240229T00:00:00</dateTime.iso8601>",
                                   "<dateTime.iso8601>20000229T23:59:59</dateTime.iso8601>",
                                   "<dateTime.iso8601>20161231T23:59:60Z</dateTime.iso8601>",
                                   "<dateTime.iso8601>99991231T23:59:59</dateTime.iso8601>"),
      call("t", DT("20240229T00:00:00"), DT("20000229T23:59:59"), DT("20161231T23:59:60Z"),
           DT("99991231T23:59:59")))

# ---- valid: base64 ---------------------------------------------------------------------------

valid("base64_basic", C("<base64>aGVsbG8=</base64>", "<base64>YQ==</base64>",
                        "<base64>YWI=</base64>", "<base64>YWJj</base64>"),
      call("t", B64(b"hello"), B64(b"a"), B64(b"ab"), B64(b"abc")))
_blob = bytes((i * 37 + 11) % 256 for i in range(300))
valid("base64_python_line_breaks", xmlrpc.client.dumps((xmlrpc.client.Binary(_blob),), "t"),
      call("t", B64(_blob)))
valid("base64_whitespace_everywhere",
      C("<base64>\r\n  aGVs\tbG8g\r\nd29y bGQ=\n  </base64>"), call("t", B64(b"hello world")))
valid("base64_all_bytes", C("<base64>" + base64.encodebytes(bytes(range(256))).decode() +
                            "</base64>"),
      call("t", B64(bytes(range(256)))))

# ---- valid: structure ------------------------------------------------------------------------

valid("params_absent", DECL + b"<methodCall><methodName>system.listMethods</methodName>"
      b"</methodCall>", call("system.listMethods"))
valid("params_empty", DECL + b"<methodCall><methodName>a</methodName><params/></methodCall>",
      call("a"))
valid("params_empty_pair", DECL + b"<methodCall><methodName>a</methodName><params>\n</params>"
      b"</methodCall>", call("a"))
valid("method_name_chars", DECL + b"<methodCall><methodName>a.B_9:c/d</methodName>"
      b"</methodCall>", call("a.B_9:c/d"))
valid("response_string", R("<string>ok</string>"), resp("ok"))
valid("struct_basic", C("<struct><member><name>a</name><value><int>1</int></value></member>"
                        "<member><name>b</name><value><string>x</string></value></member>"
                        "</struct>"), call("t", {"a": 1, "b": "x"}))
valid("struct_member_order",
      C("<struct><member><name>zeta</name><value>z</value></member><member><name>alpha</name>"
        "<value>a</value></member><member><name>mu</name><value>m</value></member></struct>"),
      call("t", {"zeta": "z", "alpha": "a", "mu": "m"}))
# Last value wins, in the position of the first (Python and xmlrpc-c keep the last).
valid("struct_duplicate_keys",
      C("<struct><member><name>a</name><value><int>1</int></value></member><member><name>b"
        "</name><value><int>2</int></value></member><member><name>a</name><value><int>3</int>"
        "</value></member></struct>"), call("t", {"a": 3, "b": 2}))
valid("struct_name_text", C("<struct><member><name>a&amp;b &lt;c&gt;</name><value>1</value>"
                            "</member><member><name/><value>empty</value></member><member><name>"
                            "<![CDATA[x]]>&#x79;</name><value>2</value></member></struct>"),
      call("t", {"a&b <c>": "1", "": "empty", "xy": "2"}))
valid("struct_untyped_members", C("<struct>\n  <member>\n    <name>k</name>\n    <value>v</value>"
                                  "\n  </member>\n</struct>"), call("t", {"k": "v"}))
valid("array_mixed",
      C("<array><data><value><int>1</int></value><value>two</value><value><double>3.0</double>"
        "</value><value><boolean>1</boolean></value><value><nil/></value><value><array><data>"
        "<value><i8>4</i8></value></data></array></value><value><struct><member><name>x</name>"
        "<value><string>y</string></value></member></struct></value></data></array>"),
      call("t", [1, "two", D(3.0), True, None, [I8(4)], {"x": "y"}]))
valid("whitespace_between_elements",
      b'<?xml version="1.0"?>\n<methodCall>\n\t<methodName>t</methodName>\n\t<params>\n\t\t<param>'
      b'\n\t\t\t<value>\n\t\t\t\t<array>\n\t\t\t\t\t<data>\n\t\t\t\t\t\t<value><int>1</int></value>'
      b'\n\t\t\t\t\t</data>\n\t\t\t\t</array>\n\t\t\t</value>\n\t\t</param>\n\t</params>\n'
      b'</methodCall>\n\n',
      call("t", [1]))
valid("tag_whitespace", b'<?xml version="1.0"?><methodCall ><methodName\n>t</methodName\t>'
      b'<params\r\n><param ><value ><int >1</int ></value\n></param></params ></methodCall >',
      call("t", 1))
valid("attributes_ignored", b'<?xml version="1.0"?><methodCall id="1" xml:lang=\'en\'>'
      b'<methodName>t</methodName><params><param><value type="int"><string a="b" c=\'d\'>x'
      b'</string></value></param></params></methodCall>', call("t", "x"))
# Names with characters XML 1.0 5th edition allows and the 4th edition (and expat) does not:
# U+0351 and U+2070 inside a name, U+10000 starting one. Attributes are ignored.
valid("names_xml_5th_edition",
      '<methodCall x\u0351="1" a\u2070="2" \U00010000="3"><methodName>t</methodName>'
      '</methodCall>', call("t"))
valid("depth_64_arrays", C(nest("array", 64)), call("t", nest_json("array", 64)))
valid("depth_64_structs", C(nest("struct", 64)), call("t", nest_json("struct", 64)))
valid("depth_64_each_param", C(nest("mixed", 64), nest("mixed", 64)),
      call("t", nest_json("mixed", 64), nest_json("mixed", 64)))

# ---- valid: text, entities, markup in strings ------------------------------------------------

valid("entities", C("<string>&lt;&gt;&amp;&apos;&quot;</string>", "a &amp;&amp; b"),
      call("t", "<>&'\"", "a && b"))
valid("char_refs", C("<string>&#65;&#x42;&#x1F600;&#xe9;&#9;&#0065;&#x000043;&#60;</string>"),
      call("t", "AB\U0001F600\u00e9\tAC<"))
valid("cdata", C("<string><![CDATA[<b>&amp;</b>]]></string>",
                 "<string>a<![CDATA[]]>b<![CDATA[c]]>d</string>",
                 "<![CDATA[x<y]]>", "<string><![CDATA[]]]]><![CDATA[>]]></string>"),
      call("t", "<b>&amp;</b>", "abcd", "x<y", "]]>"))
valid("comments_in_text", C("<string>a<!-- c -->b</string>", "x<!---->y"), call("t", "ab", "xy"))
valid("pi_in_text", C("<string>a<?foo bar?>b</string>", "c<?xml-x y?>d"), call("t", "ab", "cd"))
valid("comments_everywhere",
      b'<?xml version="1.0"?><!-- a --><?pi x?>\n<methodCall><!-- b --><methodName>t<!-- c -->'
      b'</methodName><!-- d --><params><!-- e --><param><!-- f --><value><!-- g --><int>1</int>'
      b'<!-- h --></value></param></params></methodCall><!-- i --><?pj y?>\n',
      call("t", 1))
valid("stylesheet_pi", b'<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="s.xsl"?>'
      b'<methodCall><methodName>t</methodName></methodCall>', call("t"))
valid("gt_and_brackets_in_text", C("<string>a > b ]] > c]]</string>", "'\"\""),
      call("t", "a > b ]] > c]]", "'\"\""))
valid("crlf_literal_normalised", C(b"<string>a\r\nb\rc\n\rd</string>"), call("t", "a\nb\nc\n\nd"))
valid("crlf_char_refs_kept", C("<string>a&#13;&#10;b&#13;c&#xD;</string>"),
      call("t", "a\r\nb\rc\r"))
valid("allowed_odd_characters", C("<string>\x7f\u0085\u009f\ufdd0\ufffd\U0010ffff\ue000</string>"),
      call("t", "\x7f\u0085\u009f\ufdd0\ufffd\U0010ffff\ue000"))
valid("multibyte_utf8", C("<string>h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e "
                          "\U0001F600</string>", "\u0416"),
      call("t", "h\u00e9llo w\u00f6rld \u2014 \u65e5\u672c\u8a9e \U0001F600", "\u0416"))

# ---- valid: declarations and encodings -------------------------------------------------------

valid("no_declaration", b"<methodCall><methodName>t</methodName></methodCall>", call("t"))
valid("utf8_bom", b'\xef\xbb\xbf<?xml version="1.0" encoding="UTF-8"?><methodCall><methodName>t'
      b'</methodName><params><param><value>\xc3\xa9</value></param></params></methodCall>',
      call("t", "\u00e9"))
valid("utf8_bom_no_declaration", b'\xef\xbb\xbf<methodCall><methodName>t</methodName>'
      b'</methodCall>', call("t"))
valid("decl_utf8_lowercase", C("x", decl=b'<?xml version="1.0" encoding="utf-8"?>'),
      call("t", "x"))
valid("decl_single_quotes", C("x", decl=b"<?xml version='1.0' encoding='UTF-8'?>"), call("t", "x"))
valid("decl_standalone", C("x", decl=b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'),
      call("t", "x"))
valid("decl_spacing", C("x", decl=b'<?xml  version = "1.0"\r\n encoding= \'UTF-8\'  ?>\r\n'),
      call("t", "x"))
valid("decl_us_ascii", C("caf&#xE9; &#x1F600;", decl=b'<?xml version="1.0" encoding="US-ASCII"?>'),
      call("t", "caf\u00e9 \U0001F600"))
# A Latin-1 byte is its code point: 0xE9 is U+00E9, 0xFF is U+00FF, 0x85 is U+0085.
valid("decl_latin1", C(b"caf\xe9 \xff\xa0\x85", b"<string>\xc3\xa9</string>",
                       decl=b'<?xml version="1.0" encoding="ISO-8859-1"?>'),
      call("t", "caf\u00e9 \u00ff\u00a0\u0085", "\u00c3\u00a9"))
valid("decl_latin1_lowercase", C(b"\xe9", method=b"t",
                                 decl=b'<?xml version="1.0" encoding="iso-8859-1"?>'),
      call("t", "\u00e9"))
valid("decl_latin1_in_names", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<methodResponse>'
      b'<params><param><value><struct><member><name>cl\xe9</name><value>\xe0</value></member>'
      b'</struct></value></param></params></methodResponse>',
      resp({"cl\u00e9": "\u00e0"}))

# ---- valid: what real peers send ------------------------------------------------------------

valid("python_call_allow_none",
      xmlrpc.client.dumps((1, "two", 3.0, True, None, [1, 2], {"a": 1, "b": [None]}), "m",
                          allow_none=True),
      call("m", 1, "two", D(3.0), True, None, [1, 2], {"a": 1, "b": [None]}))
valid("python_call_types",
      xmlrpc.client.dumps(("<&>", 1e100, -1e-07, 2 ** 31 - 1, -2 ** 31, False,
                           xmlrpc.client.DateTime("20240102T03:04:05"),
                           xmlrpc.client.Binary(b"\x00\x01binary\xff"), "\u00e9\U0001F600", ""),
                          "sample.types"),
      call("sample.types", "<&>", D(1e100), D(-1e-07), 2 ** 31 - 1, -2 ** 31, False,
           DT("20240102T03:04:05"), B64(b"\x00\x01binary\xff"), "\u00e9\U0001F600", ""))
valid("python_response", xmlrpc.client.dumps(({"ok": True, "list": ["a", 2, 0.5]},),
                                             methodresponse=True),
      resp({"ok": True, "list": ["a", 2, D(0.5)]}))
valid("python_response_none", xmlrpc.client.dumps((None,), methodresponse=True, allow_none=True),
      resp(None))
valid("python_fault", xmlrpc.client.dumps(xmlrpc.client.Fault(4, "Too many parameters.")),
      fault(4, "Too many parameters."))
valid("python_multicall",
      xmlrpc.client.dumps(([{"methodName": "a", "params": [1]}, {"methodName": "b", "params": []}],),
                          "system.multicall"),
      call("system.multicall", [{"methodName": "a", "params": [1]},
                                {"methodName": "b", "params": []}]))
# Captured from xmlrpc-c 1.33.14 (xmlrpc_serialize_call2 / _response2 / _fault): CRLF between
# elements, <i4>, base64 on its own lines.
XMLRPC_C_CALL_I8 = (
    b'<?xml version="1.0" encoding="UTF-8"?>\r\n<methodCall>\r\n<methodName>sample.add</methodName>'
    b'\r\n<params>\r\n<param><value><i4>7</i4></value></param>\r\n<param><value><i8>5000000000'
    b'</i8></value></param>\r\n<param><value><boolean>1</boolean></value></param>\r\n<param>'
    b'<value><double>2.5</double></value></param>\r\n<param><value><string>caf\xc3\xa9 &amp; '
    b'&lt;tag&gt;</string></value></param>\r\n<param><value><nil/></value></param>\r\n<param>'
    b'<value><base64>\r\nAAEC+v8=\r\n</base64></value></param>\r\n<param><value><struct>\r\n'
    b'<member><name>alpha</name>\r\n<value><i4>1</i4></value></member>\r\n<member><name>beta'
    b'</name>\r\n<value><string>two</string></value></member>\r\n</struct></value></param>\r\n'
    b'<param><value><array><data>\r\n<value><i4>3</i4></value>\r\n<value><i4>4</i4></value>\r\n'
    b'</data></array></value></param>\r\n<param><value><dateTime.iso8601>20240102T03:04:05'
    b'</dateTime.iso8601></value></param>\r\n</params>\r\n</methodCall>\r\n')
XMLRPC_C_CALL_EXPECTED = call("sample.add", 7, I8(5000000000), True, D(2.5), "caf\u00e9 & <tag>",
                              None, B64(b"\x00\x01\x02\xfa\xff"), {"alpha": 1, "beta": "two"},
                              [3, 4], DT("20240102T03:04:05"))
valid("xmlrpc_c_call", XMLRPC_C_CALL_I8, XMLRPC_C_CALL_EXPECTED)
valid("xmlrpc_c_call_apache",
      XMLRPC_C_CALL_I8.replace(b"<methodCall>", b'<methodCall xmlns:ex="' + APACHE_NS + b'">')
      .replace(b"<i8>5000000000</i8>", b"<ex:i8>5000000000</ex:i8>")
      .replace(b"<nil/>", b"<ex:nil/>"), XMLRPC_C_CALL_EXPECTED)
valid("xmlrpc_c_response",
      b'<?xml version="1.0" encoding="UTF-8"?>\r\n<methodResponse>\r\n<params>\r\n<param><value>'
      b'<struct>\r\n<member><name>id</name>\r\n<value><i8>-3000000000</i8></value></member>\r\n'
      b'<member><name>none</name>\r\n<value><nil/></value></member>\r\n</struct></value></param>'
      b'\r\n</params>\r\n</methodResponse>\r\n',
      resp({"id": I8(-3000000000), "none": None}))
valid("xmlrpc_c_fault",
      b'<?xml version="1.0" encoding="UTF-8"?>\r\n<methodResponse>\r\n<fault>\r\n<value><struct>'
      b'\r\n<member><name>faultCode</name>\r\n<value><i4>-501</i4></value></member>\r\n<member>'
      b'<name>faultString</name>\r\n<value><string>Expected 2 parameters, got 1</string></value>'
      b'</member>\r\n</struct></value>\r\n</fault>\r\n</methodResponse>\r\n',
      fault(-501, "Expected 2 parameters, got 1"))
valid("xmlrpc_c_datetime",
      b'<?xml version="1.0" encoding="UTF-8"?>\r\n<methodResponse>\r\n<params>\r\n<param><value>'
      b'<dateTime.iso8601>20240102T03:04:05.123456</dateTime.iso8601></value></param>\r\n'
      b'</params>\r\n</methodResponse>\r\n',
      resp(DT("20240102T03:04:05.123456")))
valid("fault_i8_code", F(["<name>faultCode</name><value><i8>-501</i8></value>",
                          "<name>faultString</name><value><string>no</string></value>"]),
      fault(-501, "no"))
valid("fault_members_reversed", F(["<name>faultString</name><value>reversed</value>",
                                   "<name>faultCode</name><value><int>7</int></value>"]),
      fault(7, "reversed"))
valid("fault_empty_string", F(["<name>faultCode</name><value><int>1</int></value>",
                               "<name>faultString</name><value><string/></value>"]),
      fault(1, ""))
valid("wordpress_call",
      b'<?xml version="1.0"?>\n<methodCall>\n  <methodName>wp.getPosts</methodName>\n  <params>\n'
      b'    <param><value><int>1</int></value></param>\n    <param><value><string>admin</string>'
      b'</value></param>\n    <param><value><string>s3cr&amp;t</string></value></param>\n'
      b'    <param><value><struct>\n      <member><name>post_type</name><value><string>post'
      b'</string></value></member>\n      <member><name>number</name><value><int>10</int></value>'
      b'</member>\n      <member><name>after</name><value><dateTime.iso8601>20240102T03:04:05Z'
      b'</dateTime.iso8601></value></member>\n    </struct></value></param>\n  </params>\n'
      b'</methodCall>\n',
      call("wp.getPosts", 1, "admin", "s3cr&t",
           {"post_type": "post", "number": 10, "after": DT("20240102T03:04:05Z")}))
valid("odoo_execute_kw",
      C("odoo", "<int>2</int>", "secret", "res.partner", "search_read",
        "<array><data><value><array><data><value><array><data><value>id</value><value>&gt;"
        "</value><value><i8>3000000000</i8></value></data></array></value></data></array>"
        "</value></data></array>",
        "<struct><member><name>fields</name><value><array><data><value>name</value></data>"
        "</array></value></member><member><name>limit</name><value><nil/></value></member>"
        "</struct>", method="execute_kw"),
      call("execute_kw", "odoo", 2, "secret", "res.partner", "search_read",
           [[["id", ">", I8(3000000000)]]], {"fields": ["name"], "limit": None}))

# ---- valid: large documents ------------------------------------------------------------------

_n = 5000
valid("large_array", C("<array><data>" + "".join(
    "<value><int>%d</int></value>" % (i * 7919 - 20000) for i in range(_n)) + "</data></array>"),
      call("t", [i * 7919 - 20000 for i in range(_n)]))
valid("large_struct", R("<struct>" + "".join(
    "<member><name>key%04d</name><value><string>v%d</string></value></member>" % (i, i * i)
    for i in range(2000)) + "</struct>"),
      resp({"key%04d" % i: "v%d" % (i * i) for i in range(2000)}))
_long = "".join(chr(0x20 + (i * 31) % 0x5e) for i in range(100000)) + "\u00e9\u4e2d\U0001F600" * 1000
valid("large_string", C(_long.replace("&", "&amp;").replace("<", "&lt;")), call("t", _long))
valid("many_params", C(*["<int>%d</int>" % i for i in range(1000)]),
      call("t", *list(range(1000))))
_bigblob = bytes((i * 131 + 7) % 256 for i in range(50000))
valid("large_base64_python", xmlrpc.client.dumps((xmlrpc.client.Binary(_bigblob),),
                                                 methodresponse=True),
      resp(B64(_bigblob)))

# ---- invalid: not well formed (-32700) -------------------------------------------------------

W = NOT_WELL_FORMED
invalid("mismatched_tag", C("<int>1</i4>"), W, "mismatched")
invalid("mismatched_root_end", b"<methodCall><methodName>t</methodName></methodResponse>", W,
        "mismatched")
invalid("mismatched_case", C("<int>1</INT>"), W, "mismatched")
invalid("unclosed_root", b"<methodCall><methodName>t</methodName>", W,
        "end|unclosed|eof|truncated|expected")
invalid("unclosed_in_value", b"<methodCall><methodName>t</methodName><params><param><value>"
        b"<string>abc", W, "end|unclosed|eof|truncated|expected")
invalid("end_tag_unfinished", b"<methodCall><methodName>t</methodName></methodCall", W,
        "end|unclosed|eof|truncated|expected|>")
invalid("text_after_root", C("x") + b"junk", W, "after|root|junk")
invalid("second_root", C("x") + b"<methodCall><methodName>t</methodName></methodCall>", W,
        "after|root|second|junk")
invalid("text_before_root", b"junk" + C("x").replace(DECL, b""), W,
        "before|root|text|content|junk|expected")
invalid("undefined_entity", C("<string>&foo;</string>"), W, "entity|foo")
invalid("entity_without_semicolon", C("<string>&amp x</string>"), W, "entity|reference|&|;")
invalid("bare_ampersand", C("<string>a & b</string>"), W, "entity|reference|&")
invalid("bare_less_than", C("<string>a < b</string>"), W, "name|tag|<")
invalid("char_ref_empty", C("<string>&#;</string>"), W, "reference|character")
invalid("char_ref_hex_empty", C("<string>&#x;</string>"), W, "reference|character")
invalid("char_ref_bad_digit", C("<string>&#12a;</string>"), W, "reference|character")
invalid("char_ref_negative", C("<string>&#-1;</string>"), W, "reference|character")
invalid("char_ref_uppercase_x", C("<string>&#X41;</string>"), W, "reference|character")
invalid("entity_uppercase", C("<string>&AMP;</string>"), W, "entity|amp")
invalid("cdata_lowercase", C("<![cdata[x]]>"), W, "markup|cdata|<!")
invalid("comment_only_dashes", C("a<!----->b"), W, "comment|--")
invalid("bom_twice", b"\xef\xbb\xbf\xef\xbb\xbf<methodCall><methodName>t</methodName></methodCall>",
        W, "before|root|text")
invalid("declaration_without_space", b"<?xml?><methodCall><methodName>t</methodName>"
        b"</methodCall>", W, "declaration|xml")
invalid("end_tag_space_before_name", C("<int>1</ int>"), W, "name|tag")
invalid("attribute_name_combining_start", '<methodCall \u0300a="1"><methodName>t</methodName>'
        '</methodCall>', W, "name|attribute")
invalid("cdata_end_in_text", C("<string>a]]>b</string>"), W, "]]>")
invalid("comment_double_dash", C("<string>a<!-- x -- y -->b</string>"), W, "comment|--")
invalid("comment_triple_dash_end", C("a<!-- x --->b"), W, "comment|--")
invalid("unclosed_comment", b"<methodCall><methodName>t</methodName><!-- x </methodCall>", W,
        "comment")
invalid("unclosed_cdata", C("<string><![CDATA[x</string></value></param></params>"
                            "</methodCall>"), W, "cdata")
invalid("cdata_outside_root", b"<![CDATA[x]]>" + C("x"), W, "cdata|root|before|expected")
invalid("decl_not_at_start", b" " + C("x"), W, "declaration|xml")
invalid("decl_after_comment", b"<!-- c -->" + C("x"), W, "declaration|xml")
invalid("decl_inside", C("x", decl=b"") .replace(b"<methodName>", b'<?xml version="1.0"?>'
                                                  b"<methodName>"), W, "declaration|xml")
invalid("decl_twice", DECL + C("x"), W, "declaration|xml")
invalid("decl_uppercase_target", C("x", decl=b'<?XML version="1.0"?>'), W,
        "declaration|xml|reserved")
invalid("pi_target_xml_case", C("a<?xMl x?>b"), W, "declaration|xml|reserved")
invalid("decl_missing_version", C("x", decl=b'<?xml encoding="UTF-8"?>'), W,
        "version|declaration")
invalid("decl_unquoted_version", C("x", decl=b'<?xml version=1.0?>'), W,
        "version|declaration|quot")
invalid("decl_unquoted_encoding", C("x", decl=b'<?xml version="1.0" encoding=UTF-8?>'), W,
        "encoding|declaration|quot")
invalid("decl_bad_standalone", C("x", decl=b'<?xml version="1.0" standalone="maybe"?>'), W,
        "standalone|declaration")
# A pseudo-attribute's name with nothing after it (found by the expat differential fuzzer).
invalid("decl_encoding_without_value", C("x", decl=b'<?xml version="1.0" encoding?>'), W,
        "encoding|declaration")
invalid("decl_standalone_without_value", C("x", decl=b'<?xml version="1.0" standalone ?>'), W,
        "standalone|declaration")
invalid("decl_wrong_order", C("x", decl=b'<?xml encoding="UTF-8" version="1.0"?>'), W,
        "version|declaration")
# expat accepts any version text here (it does not check VersionNum): see the differential test.
invalid("decl_version_not_1x", C("x", decl=b'<?xml version="abc"?>'), W, "version")
invalid("decl_unclosed", b'<?xml version="1.0"', W,
        "declaration|end|unclosed|eof|truncated|expected")
invalid("pi_without_target", C("a<? x?>b"), W, "processing instruction|target|name|<?")
invalid("duplicate_attribute", b'<methodCall a="1" a="2"><methodName>t</methodName>'
        b'</methodCall>', W, "duplicate|attribute")
invalid("attribute_unquoted", b'<methodCall a=1><methodName>t</methodName></methodCall>', W,
        "attribute|quot|value")
invalid("attribute_without_value", b'<methodCall a><methodName>t</methodName></methodCall>', W,
        "attribute|=")
invalid("attribute_lt_in_value", b'<methodCall a="x<y"><methodName>t</methodName></methodCall>',
        W, "attribute|<")
invalid("attribute_undefined_entity", b'<methodCall a="&foo;"><methodName>t</methodName>'
        b'</methodCall>', W, "entity|foo")
invalid("empty_document", b"", W, "empty|no element|end|root|expected")
invalid("whitespace_only", b" \r\n\t\n", W, "empty|no element|end|root|expected")
invalid("bom_only", b"\xef\xbb\xbf", W, "empty|no element|end|root|expected")
invalid("declaration_only", DECL + b"\n", W, "empty|no element|end|root|expected")
invalid("comment_only", b"<!-- nothing -->", W, "empty|no element|end|root|expected")
invalid("tag_name_digit", C("<1int>1</1int>"), W, "name|tag|<")
invalid("tag_space_after_lt", C("< int>1</int>"), W, "name|tag|<")
invalid("tag_unclosed_start", b"<methodCall<methodName>t</methodName></methodCall>", W,
        "name|tag|<|attribute|expected")
invalid("end_tag_with_attribute", C("<int>1</int a=\"b\">"), W, "end tag|>|expected|attribute")

# ---- invalid: bytes and characters (-32702) --------------------------------------------------

X = INVALID_CHARACTER
invalid("nul_byte", C(b"<string>a\x00b</string>"), X, "not allowed|character|u+0000|nul")
invalid("control_char_raw", C(b"<string>a\x01b</string>"), X, "not allowed|character|u+0001")
invalid("control_char_escape", C(b"<string>\x1b[0m</string>"), X, "not allowed|character|u+001b")
invalid("control_char_in_attribute", b'<methodCall a="\x08"><methodName>t</methodName>'
        b'</methodCall>', X, "not allowed|character|u+0008")
invalid("control_char_in_comment", C(b"a<!-- \x0c -->b"), X, "not allowed|character|u+000c")
invalid("control_char_in_method_name", b"<methodCall><methodName>a\x02</methodName>"
        b"</methodCall>", X, "not allowed|character|u+0002")
invalid("raw_fffe", C("<string>\ufffe</string>"), X, "not allowed|character|u+fffe")
invalid("raw_ffff", C("<string>\uffff</string>"), X, "not allowed|character|u+ffff")
invalid("char_ref_zero", C("<string>&#0;</string>"), X, "character|not allowed|reference")
invalid("char_ref_control", C("<string>&#x1;</string>"), X, "character|not allowed|reference")
invalid("char_ref_surrogate", C("<string>&#xD800;</string>"), X, "character|not allowed|reference")
invalid("char_ref_surrogate_pair", C("<string>&#xD83D;&#xDE00;</string>"), X,
        "character|not allowed|reference")
invalid("char_ref_out_of_range", C("<string>&#x110000;</string>"), X,
        "character|not allowed|reference|range")
invalid("char_ref_huge", C("<string>&#99999999999999999999;</string>"), X,
        "character|not allowed|reference|range")
invalid("char_ref_fffe", C("<string>&#xFFFE;</string>"), X, "character|not allowed|reference")
invalid("utf8_overlong", C(b"<string>\xc0\xaf</string>"), X, "utf-8")
invalid("utf8_overlong_3byte", C(b"<string>\xe0\x80\xaf</string>"), X, "utf-8")
invalid("utf8_surrogate", C(b"<string>\xed\xa0\x80</string>"), X, "utf-8")
invalid("utf8_truncated", C(b"<string>\xe2\x82</string>"), X, "utf-8")
invalid("utf8_lone_continuation", C(b"<string>a\x80b</string>"), X, "utf-8")
invalid("utf8_above_10ffff", C(b"<string>\xf4\x90\x80\x80</string>"), X, "utf-8")
invalid("utf8_five_bytes", C(b"<string>\xf8\x88\x80\x80\x80</string>"), X, "utf-8")
invalid("utf8_ff_byte", C(b"\xff"), X, "utf-8")
invalid("utf8_invalid_in_attribute", b'<methodCall a="\xc3"><methodName>t</methodName>'
        b'</methodCall>', X, "utf-8")
invalid("utf8_invalid_in_comment", C(b"a<!-- \xe9 -->b"), X, "utf-8")
invalid("utf8_invalid_in_method_name", b"<methodCall><methodName>caf\xe9</methodName>"
        b"</methodCall>", X, "utf-8")
invalid("utf8_declared_latin1_bytes", C(b"caf\xe9", decl=b'<?xml version="1.0" '
                                                        b'encoding="UTF-8"?>'), X, "utf-8")
invalid("us_ascii_high_byte", C(b"caf\xe9", decl=b'<?xml version="1.0" encoding="US-ASCII"?>'),
        X, "ascii")
invalid("latin1_control_byte", C(b"a\x01b", decl=b'<?xml version="1.0" encoding="ISO-8859-1"?>'),
        X, "not allowed|character|u+0001")

# ---- invalid: encodings (-32701) -------------------------------------------------------------

E = UNSUPPORTED_ENCODING
_u16 = ('<?xml version="1.0" encoding="UTF-16"?><methodCall><methodName>t</methodName>'
        '</methodCall>')
invalid("utf16le_bom", b"\xff\xfe" + _u16.encode("utf-16-le"), E, "utf-16|encoding")
invalid("utf16be_bom", b"\xfe\xff" + _u16.encode("utf-16-be"), E, "utf-16|encoding")
invalid("utf16_declared_ascii_bytes", C("x", decl=b'<?xml version="1.0" encoding="UTF-16"?>'), E,
        "utf-16|encoding")
invalid("encoding_unknown", C("x", decl=b'<?xml version="1.0" encoding="EBCDIC-US"?>'), E,
        "encoding")
invalid("encoding_alias_latin1", C("x", decl=b'<?xml version="1.0" encoding="latin1"?>'), E,
        "encoding|latin1")
invalid("encoding_windows_1252", C(b"\x80", decl=b'<?xml version="1.0" '
                                                 b'encoding="windows-1252"?>'), E, "encoding")

# ---- invalid: not XML-RPC (-32600) -----------------------------------------------------------

N = NOT_XMLRPC
invalid("doctype", b'<?xml version="1.0"?><!DOCTYPE methodCall>' + C("x", decl=b""), N, "doctype")
invalid("doctype_entity", b'<?xml version="1.0"?><!DOCTYPE methodCall [<!ENTITY e "boom">]>' +
        C("&e;", decl=b""), N, "doctype")
invalid("doctype_billion_laughs",
        b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n' +
        b"".join(b' <!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                 for i in range(1, 10)) +
        b']>\n' + C("&lol9;", decl=b""), N, "doctype")
invalid("doctype_external_entity",
        b'<?xml version="1.0"?><!DOCTYPE methodCall [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
        C("&xxe;", decl=b""), N, "doctype")
invalid("doctype_public", b'<!DOCTYPE methodCall PUBLIC "-//x//y" "http://example.com/x.dtd">' +
        C("x", decl=b""), N, "doctype")
invalid("unknown_root", b"<foo><methodName>t</methodName></foo>", N, "foo")
invalid("unknown_type", C("<foo>1</foo>"), N, "foo")
invalid("unknown_type_prefixed", EX(["<ex:foo>1</ex:foo>"]), N, "foo")
# Java deserialisation (CVE-2016-5003): refused whatever it holds.
invalid("ex_serializable", EX(["<ex:serializable>rO0ABXQAA2Zvbw==</ex:serializable>"]), N,
        "serializable")
invalid("method_name_empty", b"<methodCall><methodName></methodName></methodCall>", N,
        "methodname")
invalid("i1_out_of_range", EX(["<ex:i1>200</ex:i1>"]), N, "i1|range|integer")
invalid("i2_out_of_range", EX(["<ex:i2>-32769</ex:i2>"]), N, "i2|range|integer")
invalid("int_overflow", C("<int>2147483648</int>"), N, "range|overflow|2147483648|int")
invalid("int_underflow", C("<int>-2147483649</int>"), N, "range|overflow|2147483649|int")
invalid("i4_overflow", C("<i4>4294967296</i4>"), N, "range|overflow|4294967296|i4")
invalid("i8_overflow", C("<i8>9223372036854775808</i8>"), N, "range|overflow|9223372036854775808|i8")
invalid("i8_underflow", C("<i8>-9223372036854775809</i8>"), N,
        "range|overflow|9223372036854775809|i8")
invalid("int_huge", C("<int>1234567890123456789012345678901234567890</int>"), N,
        "range|overflow|int")
invalid("int_empty", C("<int></int>"), N, "int")
invalid("int_inner_space", C("<int>1 2</int>"), N, "int")
invalid("int_hex", C("<int>0x10</int>"), N, "int")
invalid("int_decimal_point", C("<int>1.0</int>"), N, "int")
invalid("int_sign_only", C("<int>-</int>"), N, "int")
invalid("int_two_signs", C("<int>+-1</int>"), N, "int")
invalid("int_with_child", C("<int><int>1</int></int>"), N, "int")
invalid("boolean_two", C("<boolean>2</boolean>"), N, "boolean")
invalid("boolean_empty", C("<boolean></boolean>"), N, "boolean")
invalid("double_nan", C("<double>nan</double>"), N, "double")
invalid("double_inf", C("<double>inf</double>"), N, "double")
invalid("double_negative_infinity", C("<double>-Infinity</double>"), N, "double")
invalid("double_two_points", C("<double>1.2.3</double>"), N, "double")
invalid("double_empty", C("<double></double>"), N, "double")
invalid("double_hex", C("<double>0x1p3</double>"), N, "double")
invalid("double_overflow", C("<double>1e400</double>"), N, "double")
invalid("double_bad_exponent", C("<double>1e</double>"), N, "double")
invalid("double_point_only", C("<double>.</double>"), N, "double")
invalid("datetime_month_13", C("<dateTime.iso8601>19981317T14:08:55</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_day_32", C("<dateTime.iso8601>19980132T14:08:55</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_feb_30", C("<dateTime.iso8601>20240230T14:08:55</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_feb_29_common_year", C("<dateTime.iso8601>19000229T14:08:55"
                                         "</dateTime.iso8601>"), N, "datetime|date")
invalid("datetime_hour_24", C("<dateTime.iso8601>19980717T24:00:00</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_garbage", C("<dateTime.iso8601>yesterday</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_empty", C("<dateTime.iso8601></dateTime.iso8601>"), N, "datetime|date")
invalid("datetime_truncated", C("<dateTime.iso8601>19980717T14:08</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_second_61", C("<dateTime.iso8601>19980717T14:08:61</dateTime.iso8601>"), N,
        "datetime|date")
invalid("datetime_offset_24h", C("<dateTime.iso8601>19980717T14:08:55+24:00</dateTime.iso8601>"), N,
        "datetime|date")
invalid("base64_one_character", C("<base64>Y</base64>"), N, "base64")
invalid("base64_bad_character", C("<base64>aGVs!bG8=</base64>"), N, "base64")
invalid("base64_padding_inside", C("<base64>YQ==YWJj</base64>"), N, "base64")
invalid("nil_with_content", C("<nil>x</nil>"), N, "nil")
invalid("mixed_text_and_element", C("abc<int>1</int>"), N, "text|mixed")
invalid("text_after_type", C("<int>1</int>abc"), N, "text|mixed")
invalid("two_types_in_value", C("<int>1</int><int>2</int>"), N, "value|int|type")
invalid("string_with_child", C("<string>a<b/>c</string>"), N, "string|<b>|element")
invalid("missing_method_name", b"<methodCall><params><param><value>x</value></param></params>"
        b"</methodCall>", N, "methodname")
invalid("method_name_twice", b"<methodCall><methodName>a</methodName><methodName>b</methodName>"
        b"</methodCall>", N, "methodname")
invalid("call_unknown_child", b"<methodCall><methodName>a</methodName><foo/></methodCall>", N,
        "foo")
invalid("params_text", b"<methodCall><methodName>a</methodName><params>x</params></methodCall>", N,
        "text|params")
invalid("param_without_value", b"<methodCall><methodName>a</methodName><params><param></param>"
        b"</params></methodCall>", N, "value|param")
invalid("struct_text", C("<struct>x<member><name>a</name><value>1</value></member></struct>"), N,
        "text|struct")
invalid("struct_member_without_name", C("<struct><member><value>1</value></member></struct>"), N,
        "name")
invalid("struct_member_without_value", C("<struct><member><name>a</name></member></struct>"), N,
        "value")
invalid("struct_foreign_child", C("<struct><value>1</value></struct>"), N, "member|value|struct")
invalid("array_values_without_data", C("<array><value>1</value></array>"), N, "data|value|array")
invalid("fault_without_fault_string", F(["<name>faultCode</name><value><int>1</int></value>"]), N,
        "faultstring")
invalid("fault_without_fault_code", F(["<name>faultString</name><value>x</value>"]), N,
        "faultcode")
invalid("fault_code_string", F(["<name>faultCode</name><value><string>1</string></value>",
                                "<name>faultString</name><value>x</value>"]), N, "faultcode")
invalid("fault_code_i8_too_big", F(["<name>faultCode</name><value><i8>4294967296</i8></value>",
                                    "<name>faultString</name><value>x</value>"]), N,
        "faultcode|range")
invalid("fault_string_int", F(["<name>faultCode</name><value><int>1</int></value>",
                               "<name>faultString</name><value><int>2</int></value>"]), N,
        "faultstring")
invalid("fault_not_struct", b"<methodResponse><fault><value><int>1</int></value></fault>"
        b"</methodResponse>", N, "fault|struct")
invalid("fault_and_params", b"<methodResponse><params><param><value>x</value></param></params>"
        b"<fault><value><struct><member><name>faultCode</name><value><int>1</int></value></member>"
        b"<member><name>faultString</name><value>x</value></member></struct></value></fault>"
        b"</methodResponse>", N, "fault|params")
invalid("response_no_params", b"<methodResponse><params/></methodResponse>", N, "param")
invalid("response_two_params", b"<methodResponse><params><param><value>a</value></param><param>"
        b"<value>b</value></param></params></methodResponse>", N, "param")
invalid("response_empty", b"<methodResponse/>", N, "params|fault|empty")
invalid("depth_65_arrays", C(nest("array", 65)), N, "depth|nest")
invalid("depth_65_structs", C(nest("struct", 65)), N, "depth|nest")
invalid("depth_65_mixed", R(nest("mixed", 65)), N, "depth|nest")
invalid("depth_1000_arrays", C(nest("array", 1000)), N, "depth|nest")


# ---- checks and output -----------------------------------------------------------------------

def expat_ok(doc):
    import pyexpat
    parser = pyexpat.ParserCreate()
    try:
        parser.Parse(doc, True)
        return True
    except pyexpat.ExpatError:
        return False


def to_form(v):
    """Python's xmlrpc.client value -> our JSON form, for the informative cross-check."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v if -2 ** 31 <= v < 2 ** 31 else I8(v)
    if isinstance(v, float):
        return D(v)
    if isinstance(v, xmlrpc.client.DateTime):
        return DT(v.value)
    if isinstance(v, xmlrpc.client.Binary):
        return B64(v.data)
    if isinstance(v, list):
        return [to_form(x) for x in v]
    if isinstance(v, dict):
        return {k: to_form(x) for k, x in v.items()}
    return repr(v)


def crosscheck(name, doc, expected):
    try:
        params, method = xmlrpc.client.loads(doc, use_builtin_types=False)
    except xmlrpc.client.Fault as f:
        got = fault(f.faultCode, f.faultString)
    except Exception as e:  # noqa: BLE001 - informative only
        print("crosscheck %s: Python refuses: %s" % (name, e))
        return
    else:
        if method is None:
            got = resp(to_form(params[0])) if len(params) == 1 else None
        else:
            got = call(method, *[to_form(p) for p in params])
    if got != expected:
        print("crosscheck %s: Python reads %s" % (name, dump(got)[:300]))


def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


SEED_MAX_BYTES = 4096
# Well formed, but expat (XML 1.0 4th edition names) refuses them.
EXPAT_REFUSES_VALID = {"names_xml_5th_edition"}


def main():
    check = "--check" in sys.argv
    errors = []
    files = {}
    for name, (doc, expected) in VALID.items():
        if not expat_ok(doc) and name not in EXPAT_REFUSES_VALID:
            errors.append("valid/%s.xml: expat says not well formed" % name)
        files["valid/%s.xml" % name] = doc
        files["valid/%s.json" % name] = (dump(expected) + "\n").encode("utf-8")
        if "--crosscheck" in sys.argv:
            crosscheck(name, doc, expected)
    for name, (doc, code, words) in INVALID.items():
        if code in (NOT_WELL_FORMED, INVALID_CHARACTER) and expat_ok(doc) and \
                name != "decl_version_not_1x":
            errors.append("invalid/%s.xml: expat says well formed" % name)
        if code == NOT_XMLRPC and b"<!DOCTYPE" not in doc and not expat_ok(doc):
            errors.append("invalid/%s.xml: expat says not well formed" % name)
        files["invalid/%s.xml" % name] = doc
        files["invalid/%s.expect" % name] = ("%d %s\n" % (code, words)).encode("utf-8")
    # Seeds for the fuzz drivers: the small documents (tests/fuzz/corpus; run.sh copies them).
    for group, cases in (("valid", VALID), ("invalid", INVALID)):
        for name, case in cases.items():
            if len(case[0]) <= SEED_MAX_BYTES:
                files["../fuzz/corpus/%s_%s.xml" % (group, name)] = case[0]
    for e in errors:
        print("generate.py: " + e, file=sys.stderr)
    if errors:
        return 1
    stale = []
    for rel, data in sorted(files.items()):
        path = os.path.join(HERE, rel)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old != data:
            stale.append(rel)
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
    extra = []
    for sub in ("valid", "invalid"):
        for entry in sorted(os.listdir(os.path.join(HERE, sub))):
            if "%s/%s" % (sub, entry) not in files:
                extra.append("%s/%s" % (sub, entry))
    if check:
        for rel in stale:
            print("generate.py --check: %s differs from the generator" % rel, file=sys.stderr)
        for rel in extra:
            print("generate.py --check: %s is not produced by the generator" % rel,
                  file=sys.stderr)
        return 1 if stale or extra else 0
    for rel in extra:
        print("note: %s is not produced by the generator (kept)" % rel)
    print("%d valid, %d invalid; %d files written" % (len(VALID), len(INVALID), len(stale)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
