#!/usr/bin/env python3
"""Writes the seed corpora of the WebSocket fuzz drivers: tests/fuzz/corpus/ws_fuzz/*.bin and
tests/fuzz/corpus/ws_client_fuzz/*.bin (a server's frames as the client reads them, after
ws_client_fuzz's two bytes: flags, chunk size less one).

Each seed is ws_fuzz's prefix (a flags byte choosing the limits: 0 the defaults, 1 a 16-byte
frame and 40-byte message, 2 one byte of each, 3 a 3000-byte frame and 100-byte message; a
count of split bytes; the split bytes) and a stream of frames: RFC 6455's examples, fragments
with a Ping between them, a 256-byte binary frame and a Close, UTF-8 split across fragments,
and a few refusals. Masked frames use the RFC's key. Run it again after changing the seeds.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RFC_KEY = b"\x37\xfa\x21\x3d"


def header(b0, n, mask_bit):
    if n <= 125:
        return bytes([b0, mask_bit | n])
    if n <= 0xFFFF:
        return bytes([b0, mask_bit | 126]) + n.to_bytes(2, "big")
    return bytes([b0, mask_bit | 127]) + n.to_bytes(8, "big")


def masked(b0, payload, key=RFC_KEY):
    """A client's frame."""
    return header(b0, len(payload), 0x80) + key + bytes(
        c ^ key[i % 4] for i, c in enumerate(payload))


def plain(b0, payload):
    """A server's frame."""
    return header(b0, len(payload), 0) + payload


def prefix(limits, *splits):
    return bytes([limits, len(splits)] + list(splits))


EURO = "a\u20ac".encode()

SEEDS = {
    "rfc_masked_hello": prefix(0) + masked(0x81, b"Hello"),
    "rfc_unmasked_hello": prefix(0, 3) + plain(0x81, b"Hello"),
    "rfc_fragments_ping_between": prefix(0, 1, 5) + masked(0x01, b"Hel") + masked(0x89, b"ping")
    + masked(0x80, b"lo"),
    "binary_256_and_close": prefix(0, 7, 100, 2) + masked(0x82, bytes(range(256)))
    + masked(0x88, b"\x03\xe8bye"),
    "utf8_split_fragments": prefix(1, 1) + plain(0x01, EURO[:2]) + plain(0x80, EURO[2:]),
    "small_limits_too_big": prefix(1) + masked(0x02, b"0123456789")
    + masked(0x80, b"0123456789" * 4),
    "bad_close_code": prefix(2) + plain(0x88, b"\x03\xed"),
    "overlong_text": prefix(3, 2) + masked(0x81, b"\xc0\x80"),
    "control_126": prefix(0) + plain(0x89, bytes(126)),
}


def note(method, *params):
    return ('{"jsonrpc":"2.0","method":"%s","params":[%s]}' % (
        method, ",".join(str(p) for p in params))).encode()


ANSWER = b'{"jsonrpc":"2.0","id":1,"result":5}'
XML_ANSWER = (b"<?xml version=\"1.0\"?><methodResponse><params><param><value><int>5</int>"
              b"</value></param></params></methodResponse>")

# ws_client_fuzz: flags (1 JSON-RPC, 2 small limit, 4 throwing handler), chunk size - 1.
CLIENT_SEEDS = {
    "notification_answer_notification": bytes([1, 255]) + plain(0x81, note("tick", 0))
    + plain(0x81, ANSWER) + plain(0x81, note("tick", 1)),
    "ping_fragmented_answer": bytes([1, 0]) + plain(0x89, b"hi") + plain(0x01, ANSWER[:9])
    + plain(0x80, ANSWER[9:]),
    "server_call_and_batch_of_notifications": bytes([5, 6])
    + plain(0x81, b'{"jsonrpc":"2.0","id":9,"method":"ask","params":[]}')
    + plain(0x81, b"[" + note("a", 1) + b"," + note("b", 2) + b"]") + plain(0x81, ANSWER),
    "xml_answer_then_close": bytes([0, 31]) + plain(0x81, XML_ANSWER)
    + plain(0x88, b"\x03\xe9gone"),
    "close_before_answer": bytes([1, 255]) + plain(0x88, b"\x03\xe8"),
    "masked_from_server": bytes([1, 255]) + masked(0x81, ANSWER),
    "over_the_limit": bytes([3, 255]) + plain(0x81, b"[" + b"1," * 40 + b"1]"),
}


def write(folder_name, seeds):
    folder = os.path.join(HERE, "corpus", folder_name)
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name + ".bin"), "wb") as f:
            f.write(data)


def main():
    write("ws_fuzz", SEEDS)
    write("ws_client_fuzz", CLIENT_SEEDS)


if __name__ == "__main__":
    main()
