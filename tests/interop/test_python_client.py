"""Python's xmlrpc.client against `callwire serve`: validator1, every type, multicall, the system
methods, faults, gzip, Basic auth, HTTPS, a Unix socket and the Apache dialect."""

import datetime
import gzip
import http.client
import signal
import socket
import ssl
import urllib.parse
import xmlrpc.client

import pytest

from conftest import ServerProcess

TIMEOUT = 10  # seconds, for every connection a test opens


class TimeoutTransport(xmlrpc.client.Transport):
    """Python's transport with a deadline on every socket operation."""

    def make_connection(self, host):
        connection = super().make_connection(host)
        connection.timeout = TIMEOUT
        return connection


class TimeoutSafeTransport(xmlrpc.client.SafeTransport):
    def make_connection(self, host):
        connection = super().make_connection(host)
        connection.timeout = TIMEOUT
        return connection


def proxy(url, **kwargs):
    kwargs.setdefault("allow_none", True)
    if url.startswith("https:"):
        kwargs.setdefault("transport", TimeoutSafeTransport(context=kwargs.pop("context", None)))
    else:
        kwargs.setdefault("transport", TimeoutTransport())
    return xmlrpc.client.ServerProxy(url, **kwargs)


def post(url, body, headers=None):
    """A raw POST with http.client: (status, header dict with lower-case names, raw body)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        all_headers = {"Content-Type": "text/xml"}
        all_headers.update(headers or {})
        connection.request("POST", parts.path, body=body, headers=all_headers)
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        connection.close()


# --- validator1, with the values of UserLand's classic suite ------------------------------------


def test_validator1_array_of_structs(server):
    structs = [{"moe": 1, "larry": 2, "curly": 3}, {"moe": 4, "larry": 5, "curly": -6},
               {"moe": 0, "larry": 0, "curly": 100}]
    assert proxy(server.url).validator1.arrayOfStructsTest(structs) == 97


def test_validator1_count_the_entities(server):
    text = "<<&>'\"\"'zz&<"
    assert proxy(server.url).validator1.countTheEntities(text) == {
        "ctLeftAngleBrackets": 3, "ctRightAngleBrackets": 1, "ctAmpersands": 2,
        "ctApostrophes": 2, "ctQuotes": 2}


def test_validator1_easy_struct(server):
    assert proxy(server.url).validator1.easyStructTest({"moe": 5, "larry": 7, "curly": -3}) == 9


def test_validator1_echo_struct(server):
    value = {"substruct0": {"moe": 1, "larry": 2, "curly": 3},
             "substruct1": {"moe": 4, "larry": [5, "six"], "curly": {"x": 1.5}}}
    answer = proxy(server.url).validator1.echoStructTest(value)
    assert answer == value
    assert list(answer) == list(value)  # member order kept


def test_validator1_many_types(server):
    when = xmlrpc.client.DateTime("20240229T23:59:58")
    blob = xmlrpc.client.Binary(bytes(range(256)))
    answer = proxy(server.url).validator1.manyTypesTest(42, True, "a string", -12.375, when, blob)
    assert answer == [42, True, "a string", -12.375, when, blob]
    assert isinstance(answer[4], xmlrpc.client.DateTime)
    assert isinstance(answer[5], xmlrpc.client.Binary)


def test_validator1_moderate_size_array(server):
    strings = [f"item{i}" for i in range(150)]
    assert proxy(server.url).validator1.moderateSizeArrayCheck(strings) == "item0item149"


def test_validator1_nested_struct(server):
    calendar = {}
    for year in ("1999", "2000", "2001"):
        calendar[year] = {}
        for month in ("03", "04", "05"):
            calendar[year][month] = {
                f"{d:02}": {"moe": d, "larry": 10 * d, "curly": 100 * d} for d in range(1, 31)}
    calendar["2000"]["04"]["01"] = {"moe": 31, "larry": 12, "curly": 25}
    assert proxy(server.url).validator1.nestedStructTest(calendar) == 68


def test_validator1_simple_struct_return(server):
    assert proxy(server.url).validator1.simpleStructReturnTest(7) == {
        "times10": 70, "times100": 700, "times1000": 7000}


def test_validator1_simple_struct_return_beyond_int_comes_back_as_i8(server):
    # 2^30 * 1000 does not fit in an int: the server answers <i8>, which Python reads.
    n = 2 ** 30
    status, _, body = post(server.url, xmlrpc.client.dumps((n,), "validator1.simpleStructReturnTest"))
    assert status == 200
    assert b"<i8>1073741824000</i8>" in body
    assert proxy(server.url).validator1.simpleStructReturnTest(n) == {
        "times10": n * 10, "times100": n * 100, "times1000": n * 1000}


def test_sample_add(server):
    p = proxy(server.url)
    assert p.sample.add(5, 3) == 8
    assert p.sample.add(-2147483648, 0) == -2147483648
    assert p.sample.add(2147483647, 1) == 2147483648  # an i8 answer


# --- echo of every type ---------------------------------------------------------------------


def test_echo_scalars(server):
    values = [None, True, False, 0, -1, 2147483647, -2147483648, 0.1, -0.0, 1e100, 5e-324,
              "", "plain", xmlrpc.client.DateTime("19980717T14:08:55"),
              xmlrpc.client.Binary(b""), xmlrpc.client.Binary(b"\x00\xff"), [], {}]
    assert proxy(server.url).echo(*values) == values


def test_echo_containers(server):
    value = {"list": [1, [2, [3, [None]]]], "empty": {}, "nested": {"a": {"b": {"c": "d"}}}}
    assert proxy(server.url).echo(value) == [value]


def test_echo_unicode(server):
    text = "grüße, 日本語, emoji 🎉, RTL עברית, combining é, <&> ]]> \t\n"
    assert proxy(server.url).echo(text, {text: text}) == [text, {text: text}]


def test_echo_big_string(server):
    text = "0123456789abcdef" * (1 << 16)  # 1 MiB
    assert proxy(server.url).echo(text) == [text]


def test_echo_base64_with_python_line_breaks(server):
    # Python writes base64 with a newline every 76 characters; the server must ignore them.
    data = bytes(range(256)) * 8
    request = xmlrpc.client.dumps((xmlrpc.client.Binary(data),), "echo")
    assert "\n" in request.split("<base64>")[1].split("</base64>")[0].strip()
    assert proxy(server.url).echo(xmlrpc.client.Binary(data)) == [xmlrpc.client.Binary(data)]


def test_echo_datetime_builtin_types(server):
    when = datetime.datetime(2024, 2, 29, 23, 59, 58)
    answer = proxy(server.url, use_builtin_types=True).echo(when, b"bytes")
    assert answer == [when, b"bytes"]


def test_echo_datetime_forms_peers_send(server):
    # Forms of dateTime.iso8601 seen in the wild, sent raw; Python reads the answer back.
    for text in ("19980717T14:08:55", "20180222T130252", "2014-11-10T23:38:51"):
        body = ("<?xml version='1.0'?><methodCall><methodName>echo</methodName><params><param>"
                f"<value><dateTime.iso8601>{text}</dateTime.iso8601></value></param>"
                "</params></methodCall>")
        status, _, raw = post(server.url, body)
        assert status == 200, raw
        (answer,), _ = xmlrpc.client.loads(raw)
        assert isinstance(answer[0], xmlrpc.client.DateTime), raw


def test_python_refuses_to_send_ints_beyond_32_bits(server):
    # Python's marshaller raises OverflowError rather than send <int>3000000000</int>: a Python
    # client cannot send an i8 at all without help.
    with pytest.raises(OverflowError):
        proxy(server.url).echo(2 ** 31)


def test_out_of_range_int_sent_raw_is_refused(server):
    # A peer that writes a 64-bit value in <int> gets -32600: <int> is 32-bit (as in xmlrpc-c).
    body = ("<?xml version='1.0'?><methodCall><methodName>echo</methodName><params><param>"
            "<value><int>3000000000</int></value></param></params></methodCall>")
    status, _, raw = post(server.url, body)
    assert status == 200
    with pytest.raises(xmlrpc.client.Fault) as fault:
        xmlrpc.client.loads(raw)
    assert fault.value.faultCode == -32600


class I8Marshaller(xmlrpc.client.Marshaller):
    """Python's marshaller, writing <i8> for integers beyond 32 bits (what a Python program that
    must talk to Koji or rtorrent does)."""

    dispatch = dict(xmlrpc.client.Marshaller.dispatch)

    def dump_long(self, value, write):
        if xmlrpc.client.MININT <= value <= xmlrpc.client.MAXINT:
            write(f"<value><int>{value}</int></value>\n")
        else:
            write(f"<value><i8>{value}</i8></value>\n")

    dispatch[int] = dump_long


def test_i8_both_ways(server, monkeypatch):
    monkeypatch.setattr(xmlrpc.client, "Marshaller", I8Marshaller)
    big = [2 ** 31, -(2 ** 31) - 1, 2 ** 63 - 1, -(2 ** 63)]
    p = proxy(server.url)
    assert p.echo(*big) == big
    assert p.sample.add(2 ** 40, 2 ** 40) == 2 ** 41
    with pytest.raises(xmlrpc.client.Fault) as fault:
        p.sample.add(2 ** 63 - 1, 1)
    assert fault.value.faultCode == -32602


# --- multicall and system.* -------------------------------------------------------------------


def test_multicall(server):
    multi = xmlrpc.client.MultiCall(proxy(server.url))
    multi.sample.add(2, 3)
    multi.echo("x", None)
    multi.no.such.method()
    multi.sample.add("a", 1)
    multi.validator1.simpleStructReturnTest(1)
    results = multi()
    assert results[0] == 5
    assert results[1] == ["x", None]
    for index, code in ((2, -32601), (3, -32602)):
        with pytest.raises(xmlrpc.client.Fault) as fault:
            results[index]
        assert fault.value.faultCode == code
    assert results[4] == {"times10": 10, "times100": 100, "times1000": 1000}


def test_system_list_methods(server):
    names = proxy(server.url).system.listMethods()
    demo = ["sample.add", "validator1.arrayOfStructsTest", "validator1.countTheEntities",
            "validator1.easyStructTest", "validator1.echoStructTest",
            "validator1.manyTypesTest", "validator1.moderateSizeArrayCheck",
            "validator1.nestedStructTest", "validator1.simpleStructReturnTest", "echo"]
    assert names[:len(demo)] == demo
    for name in ("system.listMethods", "system.methodSignature", "system.methodHelp",
                 "system.methodExist", "system.multicall", "system.getCapabilities"):
        assert name in names
    assert "system.shutdown" not in names  # not enabled


def test_system_method_signature_and_help(server):
    p = proxy(server.url)
    assert p.system.methodSignature("sample.add") == [["int", "int", "int"], ["i8", "i8", "i8"]]
    assert p.system.methodSignature("echo") == "undef"
    assert p.system.methodSignature("system.methodExist") == [["boolean", "string"]]
    assert "Adds two integers" in p.system.methodHelp("sample.add")
    with pytest.raises(xmlrpc.client.Fault) as fault:
        p.system.methodHelp("no.such")
    assert fault.value.faultCode == -32601


def test_system_method_exist(server):
    p = proxy(server.url)
    assert p.system.methodExist("sample.add") is True
    assert p.system.methodExist("system.multicall") is True
    assert p.system.methodExist("no.such") is False


def test_system_get_capabilities(server):
    capabilities = proxy(server.url).system.getCapabilities()
    assert capabilities["faults_interop"]["specVersion"] == 20010516
    assert capabilities["faults_interop"]["specUrl"].startswith("http")
    for name in ("xmlrpc", "introspection", "multicall", "nil", "i8"):
        assert name in capabilities


# --- faults ------------------------------------------------------------------------------------


def test_fault_unknown_method(server):
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(server.url).no.such.method(1)
    assert fault.value.faultCode == -32601
    assert "no.such.method" in fault.value.faultString


@pytest.mark.parametrize("args", [("a", 1), (1,), (1, 2, 3), (1.5, 2)])
def test_fault_wrong_params(server, args):
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(server.url).sample.add(*args)
    assert fault.value.faultCode == -32602


@pytest.mark.parametrize("body", [b"<methodCall><methodName>echo</methodName>",
                                  b"not xml at all", b"<methodCall></wrong>"])
def test_fault_not_well_formed(server, body):
    status, headers, raw = post(server.url, body)
    assert status == 200
    assert headers["content-type"].startswith("text/xml")
    with pytest.raises(xmlrpc.client.Fault) as fault:
        xmlrpc.client.loads(raw)
    assert fault.value.faultCode == -32700


def test_fault_doctype_refused(server):
    body = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><methodCall>'
            b"<methodName>echo</methodName><params><param><value>&a;</value></param></params>"
            b"</methodCall>")
    status, _, raw = post(server.url, body)
    assert status == 200
    with pytest.raises(xmlrpc.client.Fault) as fault:
        xmlrpc.client.loads(raw)
    assert fault.value.faultCode == -32600


# --- gzip ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gzip_server(serve):
    return serve("--listen", "127.0.0.1:0", "--gzip-min-size", "4096")


def test_answers_are_plain_by_default_even_when_gzip_is_accepted(server):
    text = "gzip me " * 4096
    request = xmlrpc.client.dumps((text,), "echo")
    status, headers, raw = post(server.url, request, {"Accept-Encoding": "gzip"})
    assert status == 200
    assert "content-encoding" not in headers
    assert xmlrpc.client.loads(raw)[0] == ([text],)


def test_large_response_is_gzipped_when_accepted(gzip_server):
    server = gzip_server
    text = "gzip me " * 4096
    request = xmlrpc.client.dumps((text,), "echo")
    status, headers, raw = post(server.url, request, {"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers.get("content-encoding") == "gzip"
    assert int(headers["content-length"]) == len(raw) < len(text)
    (answer,), _ = xmlrpc.client.loads(gzip.decompress(raw))
    assert answer == [text]
    # Without Accept-Encoding: plain.
    status, headers, raw = post(server.url, request)
    assert "content-encoding" not in headers
    assert xmlrpc.client.loads(raw)[0] == ([text],)
    # Small answers stay plain even when gzip is accepted.
    status, headers, raw = post(server.url, xmlrpc.client.dumps((1, 2), "sample.add"),
                                {"Accept-Encoding": "gzip"})
    assert "content-encoding" not in headers


def test_python_proxy_reads_gzipped_answers_and_sends_gzipped_calls(gzip_server):
    server = gzip_server
    text = "é" * 100000
    transport = TimeoutTransport()
    transport.encode_threshold = 0  # Python gzips the request body (Content-Encoding: gzip)
    assert proxy(server.url, transport=transport).echo(text) == [text]


# --- Basic auth ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def auth_server(serve):
    return serve("--listen", "127.0.0.1:0", "--user", "alice", "--password", "s3cr:t é")


def with_credentials(url, user, password):
    parts = urllib.parse.urlsplit(url)
    netloc = f"{urllib.parse.quote(user)}:{urllib.parse.quote(password)}@{parts.netloc}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def test_basic_auth(auth_server):
    assert proxy(with_credentials(auth_server.url, "alice", "s3cr:t é")).sample.add(1, 2) == 3


@pytest.mark.parametrize("user,password", [("alice", "wrong"), ("bob", "s3cr:t é"), (None, None)])
def test_basic_auth_refused(auth_server, user, password):
    url = auth_server.url if user is None else with_credentials(auth_server.url, user, password)
    with pytest.raises(xmlrpc.client.ProtocolError) as error:
        proxy(url).sample.add(1, 2)
    assert error.value.errcode == 401


def test_basic_auth_challenge(auth_server):
    status, headers, _ = post(auth_server.url, xmlrpc.client.dumps((1, 2), "sample.add"))
    assert status == 401
    assert headers["www-authenticate"].startswith("Basic realm=")


# --- HTTPS -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_server(serve, tls_cert):
    cert, key = tls_cert
    return serve("--listen", "127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key))


def test_https(tls_server, tls_cert):
    assert tls_server.url.startswith("https://127.0.0.1:")
    context = ssl.create_default_context(cafile=str(tls_cert[0]))
    p = proxy(tls_server.url, context=context)
    assert p.sample.add(20, 22) == 42
    assert p.validator1.echoStructTest({"a": "é"}) == {"a": "é"}


def test_https_untrusted_certificate_is_refused(tls_server):
    with pytest.raises(ssl.SSLCertVerificationError):
        proxy(tls_server.url, context=ssl.create_default_context()).sample.add(1, 2)


def test_plain_http_to_https_port_gets_no_answer(tls_server):
    http_url = tls_server.url.replace("https:", "http:")
    with pytest.raises((xmlrpc.client.ProtocolError, ConnectionError, http.client.HTTPException,
                        OSError)):
        proxy(http_url).sample.add(1, 2)


# --- Unix socket -----------------------------------------------------------------------------


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=TIMEOUT)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(self.unix_path)


class UnixTransport(xmlrpc.client.Transport):
    """Python's transport over a Unix socket (as supervisorctl does)."""

    def __init__(self, path):
        super().__init__()
        self.unix_path = path

    def make_connection(self, host):
        return UnixConnection(self.unix_path)


def test_unix_socket(serve, tmp_path_factory):
    path = tmp_path_factory.mktemp("unix") / "callwire.sock"
    server = serve("--listen", "127.0.0.1:0", "--unix", str(path), listeners=2)
    assert server.urls[1] == f"unix:{path}"
    p = xmlrpc.client.ServerProxy("http://localhost/RPC2", transport=UnixTransport(str(path)),
                                  allow_none=True)
    assert p.sample.add(40, 2) == 42
    assert p.echo(None, "unix") == [None, "unix"]
    # The TCP listener of the same server answers too.
    assert proxy(server.urls[0]).sample.add(1, 1) == 2


# --- Apache dialect --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def apache_server(serve):
    return serve("--listen", "127.0.0.1:0", "--dialect", "apache")


def test_apache_dialect_raw(apache_server):
    status, _, raw = post(apache_server.url,
                          xmlrpc.client.dumps((None, 5), "echo", allow_none=True))
    assert status == 200
    assert b"<ex:nil/>" in raw
    assert b'xmlns:ex="http://ws.apache.org/xmlrpc/namespaces/extensions"' in raw
    assert b"<nil/>" not in raw
    status, _, raw = post(apache_server.url, xmlrpc.client.dumps((2 ** 31 - 1, 1), "sample.add"))
    assert b"<ex:i8>2147483648</ex:i8>" in raw


def test_apache_dialect_read_by_python(apache_server):
    # Python strips the namespace prefix: <ex:nil/> is None, <ex:i8> an int.
    p = proxy(apache_server.url)
    assert p.echo(None, "x") == [None, "x"]
    assert p.sample.add(2 ** 31 - 1, 1) == 2 ** 31


def test_auto_dialect_answers_apache_to_apache(server):
    body = ('<?xml version="1.0"?><methodCall '
            'xmlns:ex="http://ws.apache.org/xmlrpc/namespaces/extensions">'
            "<methodName>echo</methodName><params><param><value><ex:nil/></value></param>"
            "</params></methodCall>")
    status, _, raw = post(server.url, body)
    assert b"<ex:nil/>" in raw
    status, _, raw = post(server.url, xmlrpc.client.dumps((None,), "echo", allow_none=True))
    assert b"<nil/>" in raw and b"ex:" not in raw


# --- edges of the data model as peers write them ------------------------------------------------


@pytest.mark.parametrize("value,expected", [
    ("<value>untyped</value>", "untyped"),
    ("<value></value>", ""),
    ("<value><string/></value>", ""),
    ("<value><string></string></value>", ""),
    ("<value><i8>\n 7\n </i8></value>", 7),  # rtorrent pretty-prints
    ("<value><i4>+007</i4></value>", 7),
    ("<value><double>1e+100</double></value>", 1e100),  # Python's own repr
    ("<value><array><data/></array></value>", []),
    ("<value><struct/></value>", {}),
    ("<value><struct><member><name>k</name><value>1</value></member>"
     "<member><name>k</name><value>2</value></member></struct></value>", {"k": "2"}),
    ("<value><ex:i1>5</ex:i1></value>", 5),
    ("<value><ex:nil/></value>", None),
    ("<value><base64>aGVs\r\n bG8=\n</base64></value>", b"hello"),
])
def test_values_as_peers_write_them(server, value, expected):
    body = ("<?xml version='1.0'?><methodCall><methodName>echo</methodName><params><param>"
            f"{value}</param></params></methodCall>")
    status, _, raw = post(server.url, body)
    assert status == 200
    (answer,), _ = xmlrpc.client.loads(raw, use_builtin_types=True)
    assert answer == [expected]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_python_non_finite_doubles_are_refused(server, value):
    # Python writes repr(): "nan", "inf"; XML-RPC has no such doubles.
    with pytest.raises(xmlrpc.client.Fault) as fault:
        proxy(server.url).echo(value)
    assert fault.value.faultCode == -32600


def test_multicall_cap(server):
    multi = xmlrpc.client.MultiCall(proxy(server.url))
    for i in range(1001):
        multi.sample.add(i, 1)
    with pytest.raises(xmlrpc.client.Fault) as fault:
        multi()
    assert fault.value.faultCode == -32600
    multi = xmlrpc.client.MultiCall(proxy(server.url))
    for i in range(1000):
        multi.sample.add(i, 1)
    assert list(multi()) == [i + 1 for i in range(1000)]


def test_nested_multicall_refused(server):
    answer = proxy(server.url).system.multicall(
        [{"methodName": "system.multicall", "params": [[]]},
         {"methodName": "sample.add", "params": [1, 2]}])
    assert answer[0]["faultCode"] == -32600
    assert answer[1] == [3]


# --- server lifecycle: IPv6, several threads, the access log, shutdown, SIGINT ------------------


def ipv6_loopback_available():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_ipv6_threads_log_and_system_shutdown(callwire_bin):
    listen = ["--listen", "127.0.0.1:0"]
    if ipv6_loopback_available():
        listen += ["--listen", "[::1]:0"]
    server = ServerProcess([callwire_bin, "serve", *listen, "--threads", "2",
                            "--handler-threads", "2", "--log", "--enable-shutdown"],
                           listeners=len(listen) // 2)
    try:
        for url in server.urls:
            assert proxy(url).sample.add(1, 2) == 3
        if len(server.urls) == 2:
            assert server.urls[1].startswith("http://[::1]:")
        p = proxy(server.url)
        assert "system.shutdown" in p.system.listMethods()
        assert p.system.shutdown() == 0
        assert server.proc.wait(5) == 0  # stops by itself
    finally:
        rc = server.stop()
    assert rc == 0
    log = server.stderr()
    assert " method=sample.add status=200 fault=0 " in log
    assert " method=system.shutdown status=200 fault=0 " in log


def test_sigint_stops_cleanly(callwire_bin):
    server = ServerProcess([callwire_bin, "serve", "--listen", "127.0.0.1:0", "--threads", "1"])
    try:
        assert proxy(server.url).sample.add(1, 2) == 3
        server.proc.send_signal(signal.SIGINT)
        assert server.proc.wait(5) == 0
    finally:
        server.stop()
