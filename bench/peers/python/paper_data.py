"""The paper's records, made exactly as bench/peers/common/paper.hpp makes them."""

RECORDS = 100
PHOTO_SIZE = 1000000
_MASK = (1 << 64) - 1


def _splitmix64(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        yield z ^ (z >> 31)


def random_bytes(size, seed):
    words = _splitmix64(seed)
    return b"".join(next(words).to_bytes(8, "little") for _ in range((size + 7) // 8))[:size]


PHOTO = random_bytes(PHOTO_SIZE, 0x50484F544F)


def make_info(record_id, with_photo):
    """Record `record_id` as the XML-RPC struct the servers send (floats as doubles)."""
    return {
        "id": record_id,
        "first_name": f"Sandor{record_id}",
        "last_name": f"Kiraly{record_id}",
        "age": 20 + record_id % 50,
        "email": f"user{record_id}@example.org",
        "phone": f"+36-30-{1000000 + record_id * 7919 % 9000000}",
        "newsletter": record_id % 3 == 0,
        "latitude": 47.9 + record_id / 1000.0,
        "longitude": 20.37 + record_id / 1000.0,
        "photo": PHOTO if with_photo else b"",
    }


def difference(got, record_id, with_photo):
    """Empty when `got` (photo as bytes) is the record, else what differs."""
    want = make_info(record_id, with_photo)
    for name, value in want.items():
        if name in ("latitude", "longitude"):
            if abs(got[name] - value) > 1e-4:
                return name
        elif got.get(name) != value:
            return name
    return ""
