"""What the test tree's HTTP fixtures share: reading a Range header (fault_origin.py, onedrive_emulator.py) and
reading a socket to its end (their tests)."""


def parse_single_range(header, size):
    """Returns None (serve the whole body), "unsatisfiable", or (first, last) inclusive.

    RFC 9110 §14.1.2: bytes=a-b, bytes=a-, bytes=-n. A malformed header or several ranges are
    ignored (whole body); a range starting past the end, or a zero suffix, is unsatisfiable.
    """
    if header is None:
        return None
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or not spec or "," in spec:
        return None
    first_s, dash, last_s = spec.strip().partition("-")
    if not dash:
        return None
    first_s, last_s = first_s.strip(), last_s.strip()
    if not all(part.isdigit() for part in (first_s, last_s) if part):
        return None
    if first_s == "":
        if last_s == "":
            return None
        suffix = int(last_s)
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        return (max(0, size - suffix), size - 1)
    first = int(first_s)
    if last_s and int(last_s) < first:
        return None
    if first >= size:
        return "unsatisfiable"
    return (first, min(int(last_s), size - 1) if last_s else size - 1)


def read_until_closed(sock):
    """Every byte the peer sends on `sock` until it closes."""
    data = b""
    while True:
        block = sock.recv(65536)
        if not block:
            return data
        data += block
