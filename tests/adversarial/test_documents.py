"""Hostile XML-RPC documents: nesting at and past the depth limit, structs of many members
(random names at the element limit, and names chosen to collide in the struct index), and
system.multicall at and past its cap. Each is a well-formed HTTP request; the cost is in the
reader and the dispatcher, on the one event loop the probe shares."""

import random
import string

from conftest import MIB, Attack, call_xml

MAX_DEPTH = 64  # xml::ReaderLimits::max_depth's default
MAX_ELEMENTS = 1 << 20  # xml::ReaderLimits::max_elements's default: start tags in a document
MAX_MULTICALL = 1000  # ServerOptions::max_multicall_calls's default
FAR_PAST = 70_000  # multicall entries: 14 start tags each, just under MAX_ELEMENTS

# Budgets: the document's bytes are held once as received; its values cost a few times that.
# A request of B bytes may raise the peak RSS by 4 B plus 16 MiB (allocator slack, the answer).
def document_budget(size):
    return 4 * size + 16 * MIB


def fault_code(answer):
    """The faultCode of an XML-RPC fault answer, or None for a plain response."""
    if b"<fault>" not in answer:
        return None
    tail = answer.split(b"<name>faultCode</name>", 1)[1]
    return int(tail.split(b"<int>", 1)[1].split(b"</int>", 1)[0])


def nested_arrays(depth):
    return ("<value><array><data>" * depth + "<value><int>1</int></value>"
            + "</data></array></value>" * depth)


def test_deep_nesting_at_and_past_the_limit(serve):
    # Models a stack-exhaustion attempt (the "deeply nested JSON/XML" crash class).
    server = serve()
    past = call_xml("echo", nested_arrays(400_000))  # about 16 MB of <array> start tags
    with Attack(server, "deep nesting", rss_budget=document_budget(len(past))) as attack:
        status, _, answer = server.call(call_xml("echo", nested_arrays(MAX_DEPTH)))
        assert status == 200 and fault_code(answer) is None, answer[:300]
        assert answer.count(b"<array>") == MAX_DEPTH + 1  # echo wraps its params in one more
        for depth in (MAX_DEPTH + 1, 400_000):
            body = call_xml("echo", nested_arrays(depth))
            status, _, answer = server.call(body)
            assert status == 200 and fault_code(answer) == -32600, (depth, answer[:300])
            assert b"nesting depth exceeds max_depth (64)" in answer, answer[:300]
        attack.note(past_depth=400_000, past_bytes=len(past))


def struct_member(name, value="<value>v</value>"):
    return f"<member><name>{name}</name>{value}</member>"


def easy_struct_call(names, typed_strings):
    """validator1.easyStructTest with moe, larry and curly (ints) among `names` (untyped
    strings, the first `typed_strings` of them as <string>)."""
    members = [struct_member(n, "<value><int>1</int></value>") for n in ("moe", "larry", "curly")]
    members += [struct_member(n, "<value><string>v</string></value>" if i < typed_strings
                              else "<value>v</value>") for i, n in enumerate(names)]
    return call_xml("validator1.easyStructTest", "<value><struct>" + "".join(members)
                    + "</struct></value>")


def test_struct_at_the_element_limit(serve):
    # Models memory and CPU exhaustion with one maximal struct (WordPress caps elements for this).
    # Start tags: 6 (methodCall, methodName, params, param, value, struct), 4 per int member
    # (member, name, value, int), 3 per untyped string member, 1 more per <string>.
    rng = random.Random(16)
    fixed = 6 + 3 * 4
    count = (MAX_ELEMENTS - fixed) // 3
    typed = MAX_ELEMENTS - fixed - 3 * count  # 0..2 extra tags to land exactly on the limit
    names = {"".join(rng.choices(string.ascii_letters, k=10)) for _ in range(count + 10)}
    names = sorted(names - {"moe", "larry", "curly"})[:count]
    at_limit = easy_struct_call(names, typed)
    past_limit = easy_struct_call(names, typed + 1)
    server = serve()
    with Attack(server, "struct at the element limit",
                rss_budget=document_budget(len(at_limit))) as attack:
        status, _, answer = server.call(at_limit)
        assert status == 200 and b"<int>3</int>" in answer, answer[:300]
        status, _, answer = server.call(past_limit)
        assert status == 200 and fault_code(answer) == -32600, answer[:300]
        attack.note(members=count + 3, body_mib=round(len(at_limit) / MIB, 1))


# The struct member index's hash until 4c2fe5c: unkeyed FNV-1a, folded, masked to the slots.
FNV_OFFSET, FNV_PRIME, M64 = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1
NAME_ALPHABET = (string.ascii_letters + string.digits + "_.").encode()  # 64 characters


def old_fnv_slot(name, slots):
    h = FNV_OFFSET
    for c in name:
        h = ((h ^ c) * FNV_PRIME) & M64
    return (h ^ (h >> 29)) & (slots - 1)


def colliding_names(count, slots):
    """`count` distinct names ("k<n>" and three characters) that all fall in slot 0 of a
    `slots`-slot index under the old FNV-1a hash. Brute force, but 262,144 candidates at a
    time: each is a 128-bit lane of one big integer, and Python's big-integer xor, multiply
    and mask run over every lane at C speed (a product stays below 2^105: lanes never carry
    into each other)."""
    tails = [bytes((a, b, c)) for a in NAME_ALPHABET for b in NAME_ALPHABET
             for c in NAME_ALPHABET]
    lane = b"\x01" + b"\x00" * 15
    ones = int.from_bytes(lane * len(tails), "little")
    tail_bytes = [int.from_bytes(b"".join(bytes((t[k],)) + b"\x00" * 15 for t in tails),
                                 "little") for k in range(3)]
    mask64, mask_slot = ones * M64, ones * (slots - 1)
    names = []
    n = 0
    while len(names) < count:
        prefix = b"k%d" % n
        n += 1
        h = FNV_OFFSET
        for c in prefix:
            h = ((h ^ c) * FNV_PRIME) & M64
        h *= ones
        for t in tail_bytes:
            h = ((h ^ t) * FNV_PRIME) & mask64
        slot = (h ^ (h >> 29)) & mask_slot
        lanes = memoryview(slot.to_bytes(len(tails) * 16, "little")).cast("Q")[::2].tolist()
        i = -1
        while True:
            try:
                i = lanes.index(0, i + 1)
            except ValueError:
                break
            names.append((prefix + tails[i]).decode())
    return names[:count]


def test_struct_names_colliding_under_the_old_hash(serve):
    # Models hash flooding (CVE-2011-4885 class): member names chosen to share one slot.
    # 2,000 names in slot 0 of 4,096 (2,001 members with curly: slots = 4,096), the struct
    # 100 times in one array; against the same document with random names of the same lengths.
    members, copies = 2000, 100
    names = colliding_names(members, 4096)
    assert all(old_fnv_slot(n.encode(), 4096) == 0 for n in names[:50])
    rng = random.Random(16)
    random_names = ["r" + "".join(rng.choices(string.ascii_letters, k=len(n) - 1))
                    for n in names]

    def document(member_names):
        struct = ("<value><struct>" + struct_member("curly", "<value><int>1</int></value>")
                  + "".join(struct_member(n) for n in member_names) + "</struct></value>")
        return call_xml("validator1.arrayOfStructsTest",
                        "<value><array><data>" + struct * copies + "</data></array></value>")

    colliding, scattered = document(names), document(random_names)
    assert len(colliding) == len(scattered)
    server = serve()
    with Attack(server, "colliding struct names",
                rss_budget=document_budget(len(colliding))) as attack:
        cpu = {}
        for label, body in (("random", scattered), ("colliding", colliding)):
            before = server.cpu_seconds()
            status, _, answer = server.call(body)
            cpu[label] = server.cpu_seconds() - before
            assert status == 200 and b"<int>%d</int>" % copies in answer, answer[:300]
        attack.note(members=members + 1, copies=copies, body_mib=round(len(colliding) / MIB, 1),
                    cpu_random_s=round(cpu["random"], 3),
                    cpu_colliding_s=round(cpu["colliding"], 3))
        # Chosen names must cost what random ones cost (FNV-1a: about 200 M probes, ~0.5 s).
        assert cpu["colliding"] <= 2 * cpu["random"] + 0.1, cpu


def multicall_of_adds(count):
    entry = ("<value><struct><member><name>methodName</name><value>sample.add</value></member>"
             "<member><name>params</name><value><array><data><value><int>5</int></value>"
             "<value><int>3</int></value></data></array></value></member></struct></value>")
    return call_xml("system.multicall", "<value><array><data>" + entry * count
                    + "</data></array></value>")


def test_multicall_at_and_past_its_cap(serve):
    # Models amplification through system.multicall (the WordPress brute-force-by-multicall).
    far_past = multicall_of_adds(FAR_PAST)
    server = serve()
    with Attack(server, "multicall at and past the cap",
                rss_budget=document_budget(len(far_past))) as attack:
        status, _, answer = server.call(multicall_of_adds(MAX_MULTICALL))
        assert status == 200 and fault_code(answer) is None, answer[:300]
        assert answer.count(b"<int>8</int>") == MAX_MULTICALL
        for count in (MAX_MULTICALL + 1, FAR_PAST):
            status, _, answer = server.call(multicall_of_adds(count))
            assert status == 200 and fault_code(answer) == -32600, (count, answer[:300])
            assert b"exceed the limit of 1000" in answer, answer[:300]
        attack.note(far_past_calls=FAR_PAST, far_past_mib=round(len(far_past) / MIB, 1))
