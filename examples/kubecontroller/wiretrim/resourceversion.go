package wiretrim

import "bytes"

// metaResourceVersion is ObjectMeta.resourceVersion's field number.
const metaResourceVersion = 6

// ResourceVersion reads metadata.resourceVersion from body, the API
// server's protobuf encoding of a PartialObjectMetadata ("k8s\x00", then a
// runtime.Unknown holding the object): what a client that asked for the
// metadata of the object it wrote (Accept
// application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1)
// needs of the answer, without decoding the rest (the managedFields above
// all). ok is false for anything else: another encoding or kind, a content
// encoding, or bytes on its way that do not parse; the caller then decodes
// body as a client would. It reads only the fields on its way (the
// Unknown's kind and raw bytes, the metadata, its resourceVersion), with
// protobuf's rules (the last value of a field wins, a message given twice is
// merged): the resourceVersion it returns is the one body decodes with
// (FuzzResourceVersion compares them).
func ResourceVersion(body []byte) (resourceVersion string, ok bool) {
	if !bytes.HasPrefix(body, []byte(protobufPrefix)) {
		return "", false
	}
	b := body[len(protobufPrefix):]
	kind, _, ok := lastInMessages(b, unknownTypeMeta, typeMetaKind)
	if !ok || string(kind) != "PartialObjectMetadata" {
		return "", false
	}
	raw, haveRaw, ok := lastField(b, unknownRaw)
	if !ok || !haveRaw {
		return "", false
	}
	if encoding, _, ok := lastField(b, unknownEncoding); !ok || len(encoding) != 0 {
		return "", false
	}
	rv, _, ok := lastInMessages(raw, objectMetadata, metaResourceVersion)
	if !ok {
		return "", false
	}
	return string(rv), true
}

// lastInMessages is the payload of the last length-delimited field inner
// of the messages of b's fields outer taken together (protobuf merges a
// message field given more than once), and whether there is one; ok is
// false when the bytes walked do not parse, or a field walked has another
// wire type.
func lastInMessages(b []byte, outer, inner uint64) (payload []byte, found, ok bool) {
	ok = eachBytesField(b, outer, func(m []byte) bool {
		p, pFound, ok := lastField(m, inner)
		if pFound {
			payload, found = p, true
		}
		return ok
	})
	return payload, found, ok
}

// lastField is the payload of the last length-delimited field num of the
// message b, and whether there is one; ok is false when b does not parse,
// or num is there with another wire type.
func lastField(b []byte, num uint64) (payload []byte, found, ok bool) {
	ok = eachBytesField(b, num, func(p []byte) bool {
		payload, found = p, true
		return true
	})
	return payload, found, ok
}

// eachBytesField calls fn with the payload of each field num of the
// message b, in order, while fn returns true; it returns false when b does
// not parse, num is there with another wire type, or fn returned false.
func eachBytesField(b []byte, num uint64, fn func(payload []byte) bool) bool {
	for i := 0; i < len(b); {
		f, ok := nextField(b, i)
		if !ok {
			return false
		}
		i = f.end
		if f.num != num {
			continue
		}
		if f.wire != wireBytes || !fn(b[f.payload:f.end]) {
			return false
		}
	}
	return true
}
