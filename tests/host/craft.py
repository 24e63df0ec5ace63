#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# perf.data files made byte by byte, for the shapes perf cannot record on
# these machines (AUX trace data), for inputs crafted to be wrong, and for
# side files with chosen records.  Layouts from tools/perf/util/header.h
# and tools/lib/perf/include/perf/event.h, as userspace/perf/format.h.
#
#   tests/host/craft.py NAME OUT [BASE]
#                                    write the crafted file NAME to OUT, its
#                                    times BASE nanoseconds later (to fall
#                                    within a real perf record's: merge
#                                    refuses files whose times do not overlap)
#   tests/host/craft.py --list       the names
#   tests/host/craft.py --malformed  the names of those that are malformed
import os
import struct
import sys

MAGIC = 0x32454C4946524550  # "PERFILE2"

# Record types.
MMAP, LOST, COMM, EXIT, SAMPLE, MMAP2, LOST_SAMPLES = 1, 2, 3, 4, 9, 10, 13
HEADER_ATTR, HEADER_TRACING_DATA, HEADER_BUILD_ID, FINISHED_ROUND = 64, 66, 67, 68
AUXTRACE_INFO, AUXTRACE, HEADER_FEATURE, COMPRESSED = 70, 71, 80, 81
MISC_KERNEL, MISC_USER, MISC_MMAP_BUILD_ID = 1, 2, 1 << 14

# Features.
FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_ARCH = 2, 3, 4, 6
FEAT_AUXTRACE, FEAT_DIR_FORMAT, FEAT_COMPRESSED = 18, 24, 27

# sample_type bits.
S_IP, S_TID, S_TIME, S_ID, S_CPU, S_PERIOD, S_IDENTIFIER = 1, 2, 4, 64, 128, 256, 1 << 16

# attr flag bits.
F_DISABLED, F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2, F_USE_CLOCKID = 0, 8, 9, 18, 23, 25
F_BUILD_ID = 34

PERF_TYPE_SOFTWARE, SW_CPU_CLOCK, SW_DUMMY = 1, 0, 9
BTS_PMU_TYPE = 42   # any number: the info record and the attr must agree
TRAILER = S_TID | S_TIME | S_CPU


def attr(type_=PERF_TYPE_SOFTWARE, config=SW_CPU_CLOCK, sample_type=S_IP | S_TID | S_TIME | S_CPU | S_PERIOD,
         flags=(F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2), clockid=None, size=112):
    """A perf_event_attr of @size bytes (PERF_ATTR_SIZE_VER5 by default)."""
    bits = 0
    for f in flags:
        bits |= 1 << f
    if clockid is not None:
        bits |= 1 << F_USE_CLOCKID
    a = struct.pack('<IIQQQQQII', type_, size, config, 4000, sample_type, 0, bits, 0, 0)
    a += b'\0' * (size - len(a))
    if clockid is not None:  # @clockid sits after sample_stack_user (VER3, offset 92)
        a = a[:92] + struct.pack('<i', clockid) + a[96:]
    return a


def id_layout(sample_type):
    """The sample_id trailer's fields, in order."""
    return [b for b in (S_TID, S_TIME, S_ID, 512, S_CPU, S_IDENTIFIER) if sample_type & b]


TIME_BASE = 0


def trailer(sample_type, pid=0, tid=0, time=0, cpu=0, id_=0):
    time += TIME_BASE
    out = b''
    for b in id_layout(sample_type):
        if b == S_TID:
            out += struct.pack('<II', pid & 0xffffffff, tid & 0xffffffff)
        elif b == S_TIME:
            out += struct.pack('<Q', time)
        elif b == S_CPU:
            out += struct.pack('<II', cpu, 0)
        else:
            out += struct.pack('<Q', id_)
    return out


def rec(type_, misc, body, tail=b''):
    return struct.pack('<IHH', type_, misc, 8 + len(body) + len(tail)) + body + tail


def name(s):
    """A NUL-terminated name padded to 8 bytes."""
    b = s.encode('utf-8', 'surrogateescape') if isinstance(s, str) else s
    b += b'\0'
    return b + b'\0' * (-len(b) % 8)


def mmap2(st, pid, start, length, pgoff, path, time, build_id=None, misc=MISC_USER, tid=None):
    tid = pid if tid is None else tid
    if build_id is not None:
        misc |= MISC_MMAP_BUILD_ID
        mid = struct.pack('<BBH20s', len(build_id), 0, 0, build_id)
    else:
        mid = struct.pack('<IIQQ', 8, 1, 1234, 0)
    body = struct.pack('<IIQQQ', pid, tid, start, length, pgoff) + mid + struct.pack('<II', 5, 2) + name(path)
    return rec(MMAP2, misc, body, trailer(st, pid, tid, time))


def kmmap(st, start, length, path, time):
    body = struct.pack('<IIQQQ', 0xffffffff, 0, start, length, start) + name(path)
    return rec(MMAP, MISC_KERNEL, body, trailer(st, -1, 0, time))


def comm(st, pid, comm_, time):
    return rec(COMM, 0, struct.pack('<II', pid, pid) + name(comm_), trailer(st, pid, pid, time))


def sample(pid, ip, time, cpu=0, period=1):
    # IP | TID | TIME | CPU | PERIOD, the order of the sample layout.
    return rec(SAMPLE, MISC_USER, struct.pack('<QIIQIIQ', ip, pid, pid, time, cpu, 0, period))


def finished_round():
    return rec(FINISHED_ROUND, 0, b'')


def string_feature(s):
    b = s.encode() + b'\0'
    b += b'\0' * (-len(b) % 64)
    return struct.pack('<I', len(b)) + b


def host_features():
    u = os.uname()
    return {FEAT_HOSTNAME: string_feature(u.nodename), FEAT_OSRELEASE: string_feature(u.release),
            FEAT_ARCH: string_feature(u.machine)}


def build_id_entry(path, bid, kernel=False, align=64):
    n = path.encode() + b'\0'
    n += b'\0' * (-len(n) % align)
    misc = (MISC_KERNEL if kernel else MISC_USER) | (1 << 15)
    return struct.pack('<IHHi20sBBH', HEADER_BUILD_ID, misc, 36 + len(n), -1, bid, len(bid), 0, 0) + n


def file_mode(attrs, records, features=None, ids=None):
    """attrs: raw attrs (one size); ids: a list of id lists per attr."""
    features = features or {}
    ids = ids or [[] for _ in attrs]
    asize = len(attrs[0])
    out = bytearray(104)
    id_offs = []
    for i in ids:
        id_offs.append(len(out))
        out += b''.join(struct.pack('<Q', x) for x in i)
    attrs_off = len(out)
    for a, i, off in zip(attrs, ids, id_offs):
        out += a + struct.pack('<QQ', off if i else 0, 8 * len(i))
    data_off = len(out)
    data = b''.join(records)
    out += data
    table = len(out)
    bits = sorted(features)
    payload_off = table + 16 * len(bits)
    sections, payload = b'', b''
    for b in bits:
        sections += struct.pack('<QQ', payload_off + len(payload), len(features[b]))
        payload += features[b]
    out += sections + payload
    feat = [0, 0, 0, 0]
    for b in bits:
        feat[b // 64] |= 1 << (b % 64)
    struct.pack_into('<QQQQQQQQQ4Q', out, 0, MAGIC, 104, asize + 16, attrs_off, len(attrs) * (asize + 16),
                     data_off, len(data), 0, 0, *feat)
    return bytes(out)


def pipe_mode(records):
    return struct.pack('<QQ', MAGIC, 16) + b''.join(records)


def header_attr(a, ids=()):
    return rec(HEADER_ATTR, 0, a + b''.join(struct.pack('<Q', i) for i in ids))


def header_feature(bit, payload):
    return rec(HEADER_FEATURE, 0, struct.pack('<Q', bit) + payload)


# --- Named files --------------------------------------------------------------

ST = S_IP | S_TID | S_TIME | S_CPU | S_PERIOD
LIB = '/tmp/mmap3-craft/libreload.so'
LIB2 = '/tmp/mmap3-craft/libstart.so'
BID_A = bytes(range(0xa0, 0xb4))
BID_B = bytes(range(0xb0, 0xc4))


def side_file(records, clockid=None, features=None):
    a = attr(PERF_TYPE_SOFTWARE, SW_DUMMY, TRAILER,
             (F_DISABLED, F_MMAP, F_SAMPLE_ID_ALL, F_MMAP2, F_BUILD_ID), clockid)
    return file_mode([a], records, host_features() if features is None else features)


def reload_perf():
    """perf's view of dlopen, dlclose, upgrade, dlopen: one range mapped twice."""
    # perf's records of what was mapped when it started have no time.
    r = [mmap2(ST, 100, 0x7f1000000000, 0x1000, 0, LIB2, 0), comm(ST, 100, 'app', 900)]
    r += [mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, LIB, 1000)]
    r += [sample(100, 0x7f0000000100, 1100 + i) for i in range(3)]
    r += [finished_round()]
    r += [mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, LIB, 3000)]
    r += [sample(100, 0x7f0000000100, 3100 + i) for i in range(3)]
    r += [finished_round()]
    return file_mode([attr(sample_type=ST)], r, host_features())


def lost_perf():
    """perf's own ring buffer lost a chunk: PERF_RECORD_LOST {id, lost}."""
    r = [comm(ST, 100, 'app', 900), mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, LIB, 1000)]
    r += [sample(100, 0x7f0000000100, 1100 + i) for i in range(3)]
    r += [rec(LOST, 0, struct.pack('<QQ', 0, 3), trailer(ST, 100, 100, 1200)), finished_round()]
    return file_mode([attr(sample_type=ST)], r, host_features())


def reload_side():
    """mmap3's view of it: each mapping with its own build-id, a moment earlier."""
    return side_file([mmap2(TRAILER, 100, 0x7f1000000000, 0x1000, 0, LIB2, 500, BID_A),
                      mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A),
                      mmap2(TRAILER, 100, 0x7f1000000000, 0x1000, 0, LIB2, 2000, BID_B),
                      mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 2998, BID_B)])


def others_side():
    """mmap3 saw perf's process 100 and another, 200, perf was not asked for."""
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A),
                      mmap2(TRAILER, 200, 0x7f2000000000, 0x1000, 0, '/tmp/mmap3-craft/secret', 1500,
                            BID_A)])


def hostile_side():
    """Names no terminal or JSON parser should see raw."""
    names = ['/tmp/a\nb', '/tmp/\x1b[31mred', b'/tmp/\xff\xfe-not-utf8', '/tmp/\u202eevil',
             '/tmp/quote"back\\slash', '/tmp/caf\u00e9']
    return side_file([mmap2(TRAILER, 200 + i, 0x400000, 0x1000, 0, n, 1000 + i, BID_A)
                      for i, n in enumerate(names)])


def lost_side():
    """A side file that lost records, as mmap3 writes it (LOST_SAMPLES)."""
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A),
                      rec(LOST_SAMPLES, 0, struct.pack('<Q', 7), trailer(TRAILER, -1, -1, 1050))])


def huge_lost_side():
    """Two LOST records of 2^63 each: their sum does not fit."""
    big = struct.pack('<Q', 1 << 63)
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A),
                      rec(LOST_SAMPLES, 0, big, trailer(TRAILER, -1, -1, 1050)),
                      rec(LOST_SAMPLES, 0, big, trailer(TRAILER, -1, -1, 1060))])


def bts_perf(with_index=True):
    """
    Intel BTS as perf record -e intel_bts// writes it: an AUXTRACE_INFO,
    then AUXTRACE records each followed by its trace (struct branch
    {from, to, misc}), with the HEADER_AUXTRACE index of their offsets.
    """
    st = S_IP | S_TID | S_TIME | S_CPU | S_IDENTIFIER
    bts = attr(BTS_PMU_TYPE, 0, st, (F_DISABLED, F_SAMPLE_ID_ALL))
    dummy = attr(PERF_TYPE_SOFTWARE, SW_DUMMY, st, (F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2))
    info = rec(AUXTRACE_INFO, 0, struct.pack('<II', 2, 0) +  # PERF_AUXTRACE_INTEL_BTS
               struct.pack('<6Q', BTS_PMU_TYPE, 0, 1, 0, 0, 0))
    records = [info, comm(st, 100, 'bts', 900),
               mmap2(st, 100, 0x400000, 0x10000, 0, '/tmp/mmap3-craft/prog', 1000)]
    index = []
    for k in range(2):
        branches = b''.join(struct.pack('<QQQ', 0x400100 + 16 * i + k, 0x400200 + 16 * i, 0)
                            for i in range(5))
        branches += b'\0' * (-len(branches) % 8)
        aux = rec(AUXTRACE, 0, struct.pack('<QQQIIII', len(branches), 4096 * k, k, 0, 100, 0, 0))
        index.append(len(b''.join(records)))
        records += [aux + branches, finished_round()]
        records += [rec(SAMPLE, MISC_USER, struct.pack('<QQIIQII', 2, 0x400100, 100, 100, 2000 + 1000 * k, 0, 0)),
                    finished_round()]
    # The index holds file offsets: data starts after header, ids and attrs.
    ids = [[1], [2]]
    data_off = 104 + 16 + 2 * (len(bts) + 16)
    entries = [(data_off + o, 48) for o in index]
    feats = host_features()
    if with_index:
        feats[FEAT_AUXTRACE] = struct.pack('<Q', len(entries)) + b''.join(struct.pack('<QQ', *e) for e in entries)
    return file_mode([bts, dummy], records, feats, ids)


def bts_side():
    """mmap3 saw a mapping between the two AUXTRACE records: it goes between them."""
    return side_file([mmap2(TRAILER, 100, 0x500000, 0x1000, 0, '/tmp/mmap3-craft/other', 1500, BID_A)])


# --- Malformed files: each must give status 1 and one line naming the offset.

def _perf(records, features=None):
    return file_mode([attr(sample_type=ST)], [comm(ST, 1, 'ok', 10)] + records,
                     host_features() if features is None else features)


def short_mmap2():
    r = bytearray(mmap2(ST, 1, 0x1000, 0x1000, 0, '/x', 20))
    struct.pack_into('<H', r, 6, 64)    # fewer bytes than its fields
    return _perf([bytes(r[:64])])


def nonul_mmap():
    body = struct.pack('<IIQQQ', 1, 1, 0x1000, 0x1000, 0) + b'A' * 16
    return _perf([rec(MMAP, MISC_USER, body, trailer(ST, 1, 1, 20))])


def odd_size():
    return _perf([rec(COMM, 0, struct.pack('<II', 1, 1) + b'ab\0\0', trailer(ST, 1, 1, 20))])


def sample_short():
    return _perf([rec(SAMPLE, MISC_USER, struct.pack('<Q', 0x1000))])


def aux_past_end():
    return _perf([rec(AUXTRACE, 0, struct.pack('<QQQIIII', 1 << 20, 0, 0, 0, 1, 0, 0))])


def buildid_nonul():
    return _perf([rec(HEADER_BUILD_ID, MISC_USER, struct.pack('<i20sBBH', -1, b'x' * 20, 20, 0, 0) + b'y' * 12)])


def table_overrun():
    f = host_features()
    f[FEAT_BUILD_ID] = build_id_entry('/bin/x', b'z' * 20)[:-8]  # the last entry cut short
    return _perf([comm(ST, 1, 'ok', 1000)], f)   # within reload-side's times: read that far


def attrs_overlap():
    b = bytearray(_perf([]))
    attrs_off = struct.unpack_from('<Q', b, 24)[0]
    struct.pack_into('<Q', b, 40, attrs_off)     # data starts at the attrs
    return bytes(b)


def feature_outside():
    b = bytearray(_perf([]))
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    struct.pack_into('<Q', b, data_off + data_size, 1 << 40)   # the first section's offset
    return bytes(b)


def ids_overlap():
    """Two attrs whose ids are the same bytes (perf writes each its own)."""
    b = bytearray(file_mode([attr(sample_type=ST), attr(sample_type=ST)], [comm(ST, 1, 'ok', 10)],
                            host_features(), [[1], [2]]))
    attrs_off, asize = struct.unpack_from('<Q', b, 24)[0], struct.unpack_from('<Q', b, 16)[0]
    struct.pack_into('<Q', b, attrs_off + 2 * asize - 16, 104)   # attr 1's ids at attr 0's
    return bytes(b)


def ids_in_header():
    """An attr's ids that are the file header's bytes."""
    b = bytearray(_perf([]))
    attrs_off, asize = struct.unpack_from('<Q', b, 24)[0], struct.unpack_from('<Q', b, 16)[0]
    struct.pack_into('<QQ', b, attrs_off + asize - 16, 0, 104)
    return bytes(b)


def ids_amplified(n=512, size=65536):
    """
    @n attrs whose ids all name the same @size bytes: read once per attr,
    a file of @size bytes would cost @n times that.
    """
    a = attr(sample_type=ST)
    ids_off = 104
    attrs_off = ids_off + size
    attrs = b''.join(a + struct.pack('<QQ', ids_off, size) for _ in range(n))
    data_off = attrs_off + len(attrs)
    data = comm(ST, 1, 'x', 1)
    out = bytearray(104) + b'\1' * size + attrs + data
    struct.pack_into('<QQQQQQQQQ4Q', out, 0, MAGIC, 104, len(a) + 16, attrs_off, len(attrs),
                     data_off, len(data), 0, 0, 0, 0, 0, 0)
    return bytes(out)


def features_amplified(size=65536):
    """
    Every feature bit (but those refused by name) at the same @size bytes:
    merge would copy them once per bit.
    """
    a = attr(sample_type=ST)
    attrs_off = 104 + size
    data_off = attrs_off + len(a) + 16
    data = comm(ST, 1, 'x', 1)
    bits = [b for b in range(256) if b not in (FEAT_BUILD_ID, FEAT_AUXTRACE, FEAT_DIR_FORMAT,
                                               FEAT_COMPRESSED)]
    out = bytearray(104) + b'\7' * size + a + struct.pack('<QQ', 0, 0) + data
    out += b''.join(struct.pack('<QQ', 104, size) for _ in bits)
    feat = [0, 0, 0, 0]
    for b in bits:
        feat[b // 64] |= 1 << (b % 64)
    struct.pack_into('<QQQQQQQQQ4Q', out, 0, MAGIC, 104, len(a) + 16, attrs_off, len(a) + 16,
                     data_off, len(data), 0, 0, *feat)
    return bytes(out)


def feature_in_data():
    """The hostname feature's bytes are a record of the data section."""
    b = bytearray(_perf([]))
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    struct.pack_into('<QQ', b, data_off + data_size, data_off, 16)   # the first section (HOSTNAME)
    return bytes(b)


def features_overlap():
    """Two features that share bytes."""
    b = bytearray(_perf([]))
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    table = data_off + data_size
    first = struct.unpack_from('<Q', b, table)[0]
    struct.pack_into('<Q', b, table + 16, first + 8)   # OSRELEASE inside HOSTNAME
    return bytes(b)


def pipe_tiny_attr():
    return pipe_mode([rec(HEADER_ATTR, 0, b'\0' * 8)])


def pipe_attr_size():
    a = bytearray(attr(sample_type=ST))
    struct.pack_into('<I', a, 4, 4096)     # attr.size larger than the record
    return pipe_mode([header_attr(bytes(a))])


def pipe_feature_id():
    return pipe_mode([header_attr(attr(sample_type=ST)), header_feature(300, b'x' * 8)])


def side_nonul():
    body = struct.pack('<IIQQQ', 1, 1, 0x1000, 0x1000, 0) + struct.pack('<BBH20s', 20, 0, 0, BID_A) + \
        struct.pack('<II', 5, 2) + b'B' * 16
    return side_file([rec(MMAP2, MISC_USER | MISC_MMAP_BUILD_ID, body, trailer(TRAILER, 1, 1, 30))])


MALFORMED = {
    'short-mmap2': short_mmap2,
    'nonul-mmap': nonul_mmap,
    'odd-size': odd_size,
    'sample-short': sample_short,
    'aux-past-end': aux_past_end,
    'buildid-nonul': buildid_nonul,
    'table-overrun': table_overrun,
    'attrs-overlap': attrs_overlap,
    'feature-outside': feature_outside,
    'ids-overlap': ids_overlap,
    'ids-in-header': ids_in_header,
    'ids-amplified': ids_amplified,
    'features-amplified': features_amplified,
    'feature-in-data': feature_in_data,
    'features-overlap': features_overlap,
    'pipe-tiny-attr': pipe_tiny_attr,
    'pipe-attr-size': pipe_attr_size,
    'pipe-feature-id': pipe_feature_id,
    'side-nonul': side_nonul,
}

def other_host_side():
    f = host_features()
    f[FEAT_HOSTNAME] = string_feature('elsewhere')
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A)], features=f)


def escape_host_side():
    """Another host, whose name would retitle and recolor a terminal."""
    f = host_features()
    f[FEAT_HOSTNAME] = string_feature('\x1b]0;owned\x07\x1b[31mred')
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A)], features=f)


def mono_side():
    """As mmap3 record --clock monotonic writes it."""
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A)], clockid=1)


# Inputs that made merge quadratic (issue #24): one mapping made 80,000
# times by one process, and 20,000 kernel maps of one module at one
# address (loaded and unloaded again and again), in both files.
SAME_N, KMAPS_N = 80000, 20000


def same_perf():
    r = [comm(ST, 100, 'app', 900)]
    r += [mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, LIB, 1000 + 10 * i) for i in range(SAME_N)]
    return file_mode([attr(sample_type=ST)], r, host_features())


def same_side():
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 999 + 10 * i, BID_A)
                      for i in range(SAME_N)])


def kmaps_perf():
    r = [kmmap(ST, 0xffffffffc0000000, 0x4000, '[kmod]', 1000 + 10 * i) for i in range(KMAPS_N)]
    return file_mode([attr(sample_type=ST)], r, host_features())


def kmaps_side():
    return side_file([kmmap(TRAILER, 0xffffffffc0000000, 0x2000, '[kmod]', 999 + 10 * i)
                      for i in range(KMAPS_N)])


FLOOD_N = 20000
FNV_PRIME, FNV_INIT, MASK64 = 0x100000001b3, 0xcbf29ce484222325, (1 << 64) - 1


def fnv1a(b, h=FNV_INIT):
    for c in b:
        h = ((h ^ c) * FNV_PRIME) & MASK64
    return h


def flood_names():
    """FLOOD_N names of one process's mappings of one range whose unkeyed
    FNV-1a hashes (over pid, tid, start, len, pgoff and the name, as merge
    hashed them before its table was keyed) end in 16 zero bits: all in one
    run of its index.  The low 16 bits of FNV-1a depend on the state's low
    16 bits alone, so two last bytes steer them: after b1 the state's bits
    8-15 must be 0, then b2 is its low byte."""
    key = struct.pack('<IIQQQ', 100, 100, 0x7f0000000000, 0x1000, 0)
    names, i = [], 0
    while len(names) < FLOOD_N:
        prefix = b'/tmp/mmap3-flood/f%d-' % i
        i += 1
        h = fnv1a(prefix, fnv1a(key))
        for b1 in range(1, 256):
            s1 = ((h ^ b1) * FNV_PRIME) & MASK64
            b2 = s1 & 0xff
            if s1 & 0xff00 or b1 == 0x2f or b2 in (0, 0x2f):
                continue
            names.append(prefix + bytes([b1, b2]))
            break
    return names


def flood_perf():
    r = [comm(ST, 100, 'app', 900)]
    r += [mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, n, 1000 + 10 * i)
          for i, n in enumerate(flood_names())]
    return file_mode([attr(sample_type=ST)], r, host_features())


def flood_side():
    return side_file([mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, n, 999 + 10 * i, BID_A)
                      for i, n in enumerate(flood_names())])


def stream(host=None, ids=0, rounds=50, id_name_len=0):
    """perf's pipe mode as perf record -o - writes it: its attr, its
    features (@host's, else this machine's), @ids HEADER_BUILD_ID records
    (names of @id_name_len bytes), then @rounds rounds of a mapping and 20
    samples each, a FINISHED_ROUND after each; times from 1000."""
    f = host_features()
    if host:
        f[FEAT_HOSTNAME] = string_feature(host)
    r = [header_attr(attr(sample_type=ST))]
    r += [header_feature(b, p) for b, p in sorted(f.items())]
    r += [build_id_entry('/usr/lib/ids/%0*d' % (max(id_name_len, 8), i), BID_A, align=8)
          for i in range(ids)]
    r.append(comm(ST, 100, 'app', 900))
    t = 1000
    for k in range(rounds):
        r.append(mmap2(ST, 100, 0x7f0000000000 + 0x10000 * k, 0x1000, 0, '/usr/lib/r%d.so' % k, t))
        r += [sample(100, 0x7f0000000100 + 0x10000 * k, t + 1 + i) for i in range(20)]
        r.append(finished_round())
        t += 1000
    return pipe_mode(r)


LIB3 = '/tmp/mmap3-craft/libmore.so'
BID_C = bytes(range(0xc0, 0xd4))


def inplace_perf():
    """perf's file of two libraries mapped by one process, with a build-id
    table of its own (one entry), as perf record writes it."""
    r = [comm(ST, 100, 'app', 900), mmap2(ST, 100, 0x7f0000000000, 0x1000, 0, LIB, 1000),
         mmap2(ST, 100, 0x7f1000000000, 0x1000, 0, LIB2, 1010)]
    r += [sample(100, 0x7f0000000100, 1100 + i) for i in range(3)]
    r += [finished_round()]
    f = host_features()
    # /usr/bin/app's, and 40 more: a table past a KiB, as a real session's.
    f[FEAT_BUILD_ID] = build_id_entry('/usr/bin/app', BID_C) + b''.join(
        build_id_entry('/usr/lib/perf%d.so' % i, bytes([i + 1]) * 20) for i in range(40))
    return file_mode([attr(sample_type=ST)], r, f)


def inplace_side(more=False, ids=40):
    """mmap3's records of both mappings, and @ids build-ids of other files
    (a table past a KiB); with @more, a third mapping perf lacks."""
    r = [mmap2(TRAILER, 100, 0x7f0000000000, 0x1000, 0, LIB, 998, BID_A),
         mmap2(TRAILER, 100, 0x7f1000000000, 0x1000, 0, LIB2, 1008, BID_B)]
    r += [mmap2(TRAILER, 300 + i, 0x7f2000000000, 0x1000, 0, '/usr/lib/other%d.so' % i, 1020,
                bytes([i]) * 20) for i in range(ids)]
    if more:
        r.append(mmap2(TRAILER, 100, 0x7f3000000000, 0x1000, 0, LIB3, 1050, BID_C))
    # Its table, as mmap3 record writes one: every file's entry, the others' too.
    f = host_features()
    f[FEAT_BUILD_ID] = build_id_entry(LIB, BID_A) + build_id_entry(LIB2, BID_B) + b''.join(
        build_id_entry('/usr/lib/other%d.so' % i, bytes([i]) * 20) for i in range(ids))
    return side_file(r, features=f)


NAMED = {
    'inplace-perf': inplace_perf,
    'inplace-side': inplace_side,
    'inplace-side-more': lambda: inplace_side(more=True),
    'stream': stream,
    'stream-elsewhere': lambda: stream(host='elsewhere'),
    'stream-short': lambda: stream(rounds=4),
    'stream-short-elsewhere': lambda: stream(host='elsewhere', rounds=4),
    'stream-ids-small': lambda: stream(ids=2000, id_name_len=4000),
    'stream-ids-big': lambda: stream(ids=20000, id_name_len=4000),
    # A record before any attr: perf writes its attrs first.
    'stream-before-attr': lambda: pipe_mode([finished_round()]),
    # A record announcing 1 GiB of payload after it.
    'stream-aux': lambda: pipe_mode([header_attr(attr(sample_type=ST)),
                                     struct.pack('<IHHQQQIIII', 71, 0, 48, 1 << 30, 0, 0, 0, 0, 0, 0)]),
    'flood-perf': flood_perf,
    'flood-side': flood_side,
    'same-perf': same_perf,
    'same-side': same_side,
    'kmaps-perf': kmaps_perf,
    'kmaps-side': kmaps_side,
    'reload-perf': reload_perf,
    'other-host-side': other_host_side,
    'escape-host-side': escape_host_side,
    'mono-side': mono_side,
    'reload-side': reload_side,
    'others-side': others_side,
    'hostile-side': hostile_side,
    'lost-side': lost_side,
    'huge-lost-side': huge_lost_side,
    'lost-perf': lost_perf,
    'bts-perf': bts_perf,
    'bts-side': bts_side,
}
NAMED.update(MALFORMED)


def main():
    if sys.argv[1:] == ['--list']:
        print('\n'.join(sorted(NAMED)))
        return 0
    if sys.argv[1:] == ['--malformed']:
        print('\n'.join(sorted(MALFORMED)))
        return 0
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in NAMED:
        print('usage: craft.py NAME OUT [BASE] | --list', file=sys.stderr)
        return 2
    global TIME_BASE
    TIME_BASE = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    with open(sys.argv[2], 'wb') as f:
        f.write(NAMED[sys.argv[1]]())
    return 0


if __name__ == '__main__':
    sys.exit(main())
