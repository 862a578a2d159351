package wiretrim

// Field numbers of the messages walked (k8s.io/apimachinery generated.proto
// of pkg/apis/meta/v1 and pkg/runtime, k8s.io/api core/v1 and apps/v1).
const (
	watchEventObject   = 2  // metav1.WatchEvent.object (RawExtension)
	rawExtensionRaw    = 1  // runtime.RawExtension.raw
	unknownTypeMeta    = 1  // runtime.Unknown.typeMeta
	unknownRaw         = 2  // runtime.Unknown.raw
	unknownEncoding    = 3  // runtime.Unknown.contentEncoding
	unknownContentType = 4  // runtime.Unknown.contentType
	typeMetaAPIVersion = 1  // runtime.TypeMeta.apiVersion
	typeMetaKind       = 2  // runtime.TypeMeta.kind
	objectMetadata     = 1  // metadata of Pod, PersistentVolumeClaim, Node, ControllerRevision
	listItems          = 2  // items of their lists
	nodeSpec           = 2  // Node.spec
	nodeStatus         = 3  // Node.status
	metaLabels         = 11 // ObjectMeta.labels (map<string, string>)
	metaAnnotations    = 12 // ObjectMeta.annotations (map<string, string>)
	metaManagedFields  = 17 // ObjectMeta.managedFields
	mapEntryKey        = 1  // key of a map entry
	mapEntryValue      = 2  // value of a map entry
)

// protobufPrefix starts every object the protobuf serializer encodes
// (a runtime.Unknown follows it).
const protobufPrefix = "k8s\x00"

// policy is what a trim drops of an object.
type policy uint8

const (
	// dropManagedFields drops metadata.managedFields.
	dropManagedFields policy = iota + 1
	// metadataOnly drops metadata.managedFields, spec and status.
	metadataOnly
	// podFields drops metadata.managedFields, and of the spec and status
	// what a pod's cache does not keep (podSpecKept, podStatusKept).
	podFields
)

// policyFor is the policy for an object or list of the kind an Unknown
// names, and whether the kind is a list; zero for the kinds left alone.
func policyFor(apiVersion, kind []byte) (p policy, list bool) {
	switch string(apiVersion) {
	case "v1":
		switch string(kind) {
		case "Pod":
			return podFields, false
		case "PodList":
			return podFields, true
		case "PersistentVolumeClaim":
			return dropManagedFields, false
		case "PersistentVolumeClaimList":
			return dropManagedFields, true
		case "Node":
			return metadataOnly, false
		case "NodeList":
			return metadataOnly, true
		}
	case "apps/v1":
		switch string(kind) {
		case "ControllerRevision":
			return dropManagedFields, false
		case "ControllerRevisionList":
			return dropManagedFields, true
		}
	}
	return 0, false
}

// shrink is how many bytes a length-delimited field f loses when its
// payload loses inside bytes: those and the bytes its length varint,
// rewritten minimally, saves (none when nothing changes inside, the
// varint is then kept as it is).
func shrink(f field, inside int) int {
	if inside == 0 {
		return 0
	}
	return inside + (f.payload - f.lenStart) - varintLen(uint64(f.payloadLen()-inside))
}

// onlyBytesField is the one field numbered num of the message in
// b[start:end], which must be length-delimited; ok is false when the
// message is malformed or has none or several.
func onlyBytesField(b []byte, start, end int, num uint64) (only field, ok bool) {
	found := false
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok {
			return field{}, false
		}
		if f.num == num {
			if found || f.wire != wireBytes {
				return field{}, false
			}
			only, found = f, true
		}
		i = f.end
	}
	return only, found
}

// metaCut is how many bytes dropping managedFields removes from the
// ObjectMeta in b[start:end]; ok is false when it is malformed.
func metaCut(b []byte, start, end int) (removed int, ok bool) {
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok {
			return 0, false
		}
		switch f.num {
		case metaManagedFields:
			if f.wire != wireBytes {
				return 0, false
			}
			removed += f.end - f.start
		case metaLabels, metaAnnotations:
			if f.wire != wireBytes || !wellFormedMapEntry(b, f.payload, f.end) {
				return 0, false
			}
		}
		i = f.end
	}
	return removed, true
}

// wellFormedMapEntry reports whether the map entry in b[start:end] is made
// of whole fields, its key and value length-delimited. The generated
// decoders read a key or value as long as its length says, within the
// whole ObjectMeta rather than within the entry: a malformed entry reads
// the bytes after it, which a cut would change.
func wellFormedMapEntry(b []byte, start, end int) bool {
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok || (f.num == mapEntryKey || f.num == mapEntryValue) && f.wire != wireBytes {
			return false
		}
		i = f.end
	}
	return true
}

// writeMeta writes the ObjectMeta in c.buf[c.r:end] without its
// managedFields.
func writeMeta(c *compactor, end int) {
	for i := c.r; i < end; {
		f, _ := nextField(c.buf[:end], i)
		if f.num == metaManagedFields {
			c.keep(f.start)
			c.cut(f.end)
		}
		i = f.end
	}
	c.keep(end)
}

// dropsField reports whether an object's policy drops its field f whole.
func (p policy) dropsField(f field) bool {
	return p == metadataOnly && (f.num == nodeSpec || f.num == nodeStatus)
}

// trimsField is the message an object's policy trims its field f by, nil
// when it keeps or drops it whole.
func (p policy) trimsField(f field) message {
	if p == podFields {
		return podMessage(f)
	}
	return nil
}

// objectCut is how many bytes the policy removes from the object in
// b[start:end], and how many of them its metadata loses inside; ok is false
// when it is malformed or has its metadata twice.
func objectCut(b []byte, start, end int, p policy) (removed, metaInside int, ok bool) {
	seenMeta := false
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok {
			return 0, 0, false
		}
		switch {
		case f.num == objectMetadata:
			if f.wire != wireBytes || seenMeta {
				return 0, 0, false
			}
			seenMeta = true
			if metaInside, ok = metaCut(b, f.payload, f.end); !ok {
				return 0, 0, false
			}
			removed += shrink(f, metaInside)
		case p.dropsField(f):
			removed += f.end - f.start
		case p.trimsField(f) != nil:
			if f.wire != wireBytes {
				return 0, 0, false
			}
			inside, ok := messageCut(b, f.payload, f.end, p.trimsField(f))
			if !ok {
				return 0, 0, false
			}
			removed += shrink(f, inside)
		}
		i = f.end
	}
	return removed, metaInside, true
}

// writeObject writes the object in c.buf[c.r:end] trimmed by the policy;
// objectCut has checked it and found metaInside.
func writeObject(c *compactor, end int, p policy, metaInside int) {
	for i := c.r; i < end; {
		f, _ := nextField(c.buf[:end], i)
		switch {
		case f.num == objectMetadata:
			if metaInside > 0 {
				c.length(f, f.payloadLen()-metaInside)
				writeMeta(c, f.end)
			}
		case p.dropsField(f):
			c.keep(f.start)
			c.cut(f.end)
		case p.trimsField(f) != nil:
			sub := p.trimsField(f)
			if inside, _ := messageCut(c.buf, f.payload, f.end, sub); inside > 0 {
				c.length(f, f.payloadLen()-inside)
				writeMessage(c, f.end, sub)
			}
		}
		i = f.end
	}
	c.keep(end)
}

// listCut is how many bytes the policy removes from the items of the list
// in b[start:end]; ok is false when it or an item is malformed.
func listCut(b []byte, start, end int, p policy) (removed int, ok bool) {
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok {
			return 0, false
		}
		if f.num == listItems {
			if f.wire != wireBytes {
				return 0, false
			}
			inside, _, ok := objectCut(b, f.payload, f.end, p)
			if !ok {
				return 0, false
			}
			removed += shrink(f, inside)
		}
		i = f.end
	}
	return removed, true
}

// writeList writes the list in c.buf[c.r:end] with its items trimmed by
// the policy; listCut has checked it.
func writeList(c *compactor, end int, p policy) {
	for i := c.r; i < end; {
		f, _ := nextField(c.buf[:end], i)
		if f.num == listItems {
			if inside, metaInside, _ := objectCut(c.buf, f.payload, f.end, p); inside > 0 {
				c.length(f, f.payloadLen()-inside)
				writeObject(c, f.end, p, metaInside)
			}
		}
		i = f.end
	}
	c.keep(end)
}

// maxLevels bounds the length-delimited fields enclosing an object: a
// watch event's object, its raw bytes, the Unknown's raw.
const maxLevels = 3

// edit is the rewrite of one encoded object, or list, and of the
// length-delimited fields around it, planned before anything is written.
type edit struct {
	levels     [maxLevels]field // enclosing fields, outermost first
	inside     [maxLevels]int   // bytes each level's payload loses
	n          int              // levels used
	policy     policy
	list       bool
	metaInside int // bytes an object's metadata loses (not a list's)
	removed    int // bytes the whole rewrite removes
}

// planUnknown plans the trim of "k8s\x00" + runtime.Unknown in b[start:end]
// as the last level of e; ok is false when it is not one of the kinds
// trimmed (a list when list is true, else an object), is malformed, or
// loses nothing.
func (e *edit) planUnknown(b []byte, start, end int, list bool) (ok bool) {
	if end-start < len(protobufPrefix) || string(b[start:start+len(protobufPrefix)]) != protobufPrefix {
		return false
	}
	var raw field
	var apiVersion, kind []byte
	seenTypeMeta, seenRaw := false, false
	for i := start + len(protobufPrefix); i < end; {
		f, ok := nextField(b[:end], i)
		if !ok || f.wire != wireBytes {
			return false
		}
		switch f.num {
		case unknownTypeMeta:
			if seenTypeMeta {
				return false
			}
			seenTypeMeta = true
			for j := f.payload; j < f.end; {
				g, ok := nextField(b[:f.end], j)
				if !ok {
					return false
				}
				switch {
				case g.num == typeMetaAPIVersion && g.wire == wireBytes:
					apiVersion = b[g.payload:g.end]
				case g.num == typeMetaKind && g.wire == wireBytes:
					kind = b[g.payload:g.end]
				}
				j = g.end
			}
		case unknownRaw:
			if seenRaw {
				return false
			}
			raw, seenRaw = f, true
		case unknownEncoding, unknownContentType:
			if f.payloadLen() != 0 {
				// Set by no API server; whatever it would mean, the
				// bytes are not ours to read.
				return false
			}
		}
		i = f.end
	}
	p, isList := policyFor(apiVersion, kind)
	if p == 0 || isList != list || !seenRaw {
		return false
	}
	var inside int
	if list {
		inside, ok = listCut(b, raw.payload, raw.end, p)
	} else {
		inside, e.metaInside, ok = objectCut(b, raw.payload, raw.end, p)
	}
	if !ok || inside == 0 || e.n == maxLevels {
		return false
	}
	e.levels[e.n], e.inside[e.n] = raw, inside
	e.n++
	e.policy, e.list = p, list
	for k := e.n - 1; k > 0; k-- {
		e.inside[k-1] = shrink(e.levels[k], e.inside[k])
	}
	e.removed = shrink(e.levels[0], e.inside[0])
	return true
}

// write rewrites buf in place from start to end as planned and returns the
// new end.
func (e *edit) write(buf []byte, start, end int) int {
	c := compactor{buf: buf, r: start, w: start}
	for k := 0; k < e.n; k++ {
		c.length(e.levels[k], e.levels[k].payloadLen()-e.inside[k])
	}
	last := e.levels[e.n-1]
	if e.list {
		writeList(&c, last.end, e.policy)
	} else {
		writeObject(&c, last.end, e.policy, e.metaInside)
	}
	c.keep(end)
	return c.w
}

// trimWatchEvent trims, in place, the metav1.WatchEvent encoded in
// buf[start:end] (a frame of a protobuf watch stream) and returns its new
// end: end when it is left as it is.
func trimWatchEvent(buf []byte, start, end int) int {
	var e edit
	object, ok := onlyBytesField(buf, start, end, watchEventObject)
	if !ok {
		return end
	}
	raw, ok := onlyBytesField(buf, object.payload, object.end, rawExtensionRaw)
	if !ok {
		return end
	}
	e.levels[0], e.levels[1], e.n = object, raw, 2
	if !e.planUnknown(buf, raw.payload, raw.end, false) {
		return end
	}
	return e.write(buf, start, end)
}

// trimList trims, in place, the list encoded in buf (a protobuf list
// response: "k8s\x00" + runtime.Unknown) and returns its new length:
// len(buf) when it is left as it is.
func trimList(buf []byte) int {
	var e edit
	if !e.planUnknown(buf, 0, len(buf), true) {
		return len(buf)
	}
	return e.write(buf, 0, len(buf))
}
