#!/usr/bin/env python3
"""Writes tests/vectors/consumer_groups.json: the consumer-group facts of
orbit.go pcgroups v0.2 and nats-server, computed here from their definitions
(independently of natsjet's code), for the Rust and JS tests to check against.
Run from the repository root: python3 scripts/groups-vectors.py"""
import json

def fnv1a32(b):
    h = 0x811c9dc5
    for x in b:
        h = ((h ^ x) * 0x01000193) & 0xffffffff
    return h

def balanced(members, max_members, member):
    # GeneratePartitionFilters: dedupe, sort, cap, runs of max/n then round-robin.
    ms = sorted(set(members))[:max_members]
    n = len(ms)
    per = max_members // n
    out = []
    for i in range(max_members):
        owner = ms[(i // per) % n] if i < n * per else ms[(i - n * per) % n]
        if owner == member:
            out.append(i)
    return out

distributions = []
for members, max_members in [(["m1", "m2"], 10), (["m3", "m1", "m2"], 8), (["b", "a", "a", "c", "d", "e"], 4),
                             (["m1"], 5), (["x", "y", "z", "w", "v"], 8), (["m2", "m1", "m3", "m4", "m5"], 16)]:
    distributions.append({"members": members, "max_members": max_members,
                          "partitions": {m: balanced(members, max_members, m) for m in sorted(set(members))}})

def partition(subject, filt, wildcards, n):
    stars = [i for i, t in enumerate(filt.split(".")) if t == "*"]
    if not wildcards:
        return fnv1a32(subject.encode()) % n  # {{Partition(N)}}: the whole subject
    toks = subject.split(".")
    key = b"".join(toks[stars[w - 1]].encode() for w in wildcards)
    return fnv1a32(key) % n

keys = []
for n in (8, 10):
    for k in range(200):
        subject = f"orders.key{k}"
        keys.append({"subject": subject, "filter": "orders.*", "wildcards": [1], "max_members": n,
                     "partition": partition(subject, "orders.*", [1], n)})
for k in range(20):
    subject = f"a.r{k}.b.c{k * 7}"
    keys.append({"subject": subject, "filter": "a.*.b.*", "wildcards": [2, 1], "max_members": 6,
                 "partition": partition(subject, "a.*.b.*", [2, 1], 6)})

for k in range(30):
    subject = f"events.e{k}.x"
    keys.append({"subject": subject, "filter": ">", "wildcards": None, "max_members": 3,
                 "partition": partition(subject, ">", None, 3)})

documents = [
    {"kind": "static", "go_json": '{"max_members":4,"filters":["foo.>"],"members":["m1","m2"]}'},
    {"kind": "static", "go_json": '{"max_members":3,"member_mappings":[{"member":"m1","partitions":[0,2]},{"member":"m2","partitions":[1]}]}'},
    {"kind": "elastic", "go_json": '{"max_members":8,"partitioning_filters":[{"filter":"orders.*","partitioning_wildcards":[1]}],"members":["m1","m2","m3"]}'},
    {"kind": "elastic", "go_json": '{"max_members":2,"partitioning_filters":null}'},
    {"kind": "elastic", "go_json": '{"max_members":4,"partitioning_filters":[{"filter":"a.*.b.>","partitioning_wildcards":null}],"max_buffered_msg":1000,"max_buffered_bytes":1048576,"member_mappings":[{"member":"x","partitions":[0,1,2,3]}]}'},
]

transforms = [
    {"filter": "orders.*", "wildcards": [1], "max_members": 8, "dest": "{{Partition(8,1)}}.orders.{{Wildcard(1)}}"},
    {"filter": "a.*.b.*", "wildcards": [2, 1], "max_members": 6, "dest": "{{Partition(6,2,1)}}.a.{{Wildcard(1)}}.b.{{Wildcard(2)}}"},
    {"filter": "a.*.>", "wildcards": None, "max_members": 3, "dest": "{{Partition(3)}}.a.{{Wildcard(1)}}.>"},
]

out = {"about": "orbit.go pcgroups v0.2 and nats-server partition facts; written by scripts/groups-vectors.py",
       "documents": documents, "distributions": distributions, "transforms": transforms, "partitions": keys}
with open("tests/vectors/consumer_groups.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
