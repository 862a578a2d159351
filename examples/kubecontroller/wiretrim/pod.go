package wiretrim

// Field numbers of a pod's messages (k8s.io/api core/v1 generated.proto).
const (
	podSpec   = 2 // Pod.spec
	podStatus = 3 // Pod.status
)

// message is what a trim keeps of a protobuf message: the fields it lists,
// each kept whole or, when it has a message of its own, trimmed by it
// (every element of a repeated field alike); every other field, unknown
// ones included, is dropped.
type message []kept

// kept is a field a message keeps.
type kept struct {
	num uint64
	sub message // nil: kept whole
}

// rule is how m treats field num: dropped, kept whole, or trimmed by sub.
func (m message) rule(num uint64) (sub message, keep bool) {
	for _, k := range m {
		if k.num == num {
			return k.sub, true
		}
	}
	return nil, false
}

// podContainer is what is kept of a Container: name (1), image (2), env
// (7), resources (8), resizePolicy (23), restartPolicy (24).
var podContainer = message{{num: 1}, {num: 2}, {num: 7}, {num: 8}, {num: 23}, {num: 24}}

// podContainerStatus is what is kept of a ContainerStatus: name (1),
// ready (4), restartCount (5), image (6), imageID (7), containerID (8),
// resources (11).
var podContainerStatus = message{{num: 1}, {num: 4}, {num: 5}, {num: 6}, {num: 7}, {num: 8}, {num: 11}}

// podSpecKept is what is kept of a PodSpec: volumes (1; a Volume's name,
// 1), containers (2), restartPolicy (3), activeDeadlineSeconds (5),
// nodeName (10), initContainers (20), readinessGates (28),
// topologySpreadConstraints (33; a constraint's topologyKey, 2).
var podSpecKept = message{
	{num: 1, sub: message{{num: 1}}},
	{num: 2, sub: podContainer},
	{num: 3},
	{num: 5},
	{num: 10},
	{num: 20, sub: podContainer},
	{num: 28},
	{num: 33, sub: message{{num: 2}}},
}

// podStatusKept is what is kept of a PodStatus: phase (1), conditions (2),
// containerStatuses (8), initContainerStatuses (10).
var podStatusKept = message{
	{num: 1},
	{num: 2},
	{num: 8, sub: podContainerStatus},
	{num: 10, sub: podContainerStatus},
}

// podMessage is the message a pod's field f is trimmed by (its spec and
// status), nil for the others.
func podMessage(f field) message {
	switch f.num {
	case podSpec:
		return podSpecKept
	case podStatus:
		return podStatusKept
	}
	return nil
}

// messageCut is how many bytes trimming the message in b[start:end] by m
// removes; ok is false when it, or a field m trims by a message of its
// own, is malformed.
//
// None of the messages trimmed keeps a map field of its own: the generated
// decoders read a map entry's key and value as far as their lengths say
// within the whole message rather than the entry (see wellFormedMapEntry),
// and a malformed entry of a kept map would read bytes a cut had moved. The
// maps of a pod's spec and status (nodeSelector, overhead, a container
// status's allocatedResources) are all dropped; those of a kept message
// (a container's resources) are decoded within that message's own bytes,
// which are kept whole.
func messageCut(b []byte, start, end int, m message) (removed int, ok bool) {
	for i := start; i < end; {
		f, ok := nextField(b[:end], i)
		if !ok {
			return 0, false
		}
		sub, keep := m.rule(f.num)
		switch {
		case !keep:
			removed += f.end - f.start
		case sub != nil:
			if f.wire != wireBytes {
				return 0, false
			}
			inside, ok := messageCut(b, f.payload, f.end, sub)
			if !ok {
				return 0, false
			}
			removed += shrink(f, inside)
		}
		i = f.end
	}
	return removed, true
}

// writeMessage writes the message in c.buf[c.r:end] trimmed by m;
// messageCut has checked it.
func writeMessage(c *compactor, end int, m message) {
	for i := c.r; i < end; {
		f, _ := nextField(c.buf[:end], i)
		sub, keep := m.rule(f.num)
		switch {
		case !keep:
			c.keep(f.start)
			c.cut(f.end)
		case sub != nil:
			if inside, _ := messageCut(c.buf, f.payload, f.end, sub); inside > 0 {
				c.length(f, f.payloadLen()-inside)
				writeMessage(c, f.end, sub)
			}
		}
		i = f.end
	}
	c.keep(end)
}
