package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/clonecore/cloneset/model"
	"gopkg.in/yaml.v3"
)

// Kinds and API versions the loader reads; every other document is ignored.
const (
	apiScenario    = "clonesetcore/v1alpha1"
	kindScenario   = "Scenario"
	kindCloneSet   = "CloneSet"
	kindPod        = "Pod"
	kindPVC        = "PersistentVolumeClaim"
	kindRevision   = "ControllerRevision"
	kindNode       = "Node"
	kindJob        = "ImagePullJob"
	kindList       = "List"
	maxListNesting = 8
)

// Options adjust how strictly a scenario is checked. The zero value is the
// default of Load, LoadBytes, LoadFiles and the CLI: a CloneSet is held to what
// the API server would admit (upstream's defaulting, then the validating
// webhook of its API version; docs/spec/lifecycle-status-validation.md 4).
type Options struct {
	// SkipBudgetRule accepts a CloneSet that breaks only the webhook's budget
	// rule, "maxUnavailable and maxSurge should not both be less than 1"
	// (rules A17 and B17 of docs/spec/lifecycle-status-validation.md 4.4/4.5,
	// including the v1beta1 quirk that ignores maxSurge). It is an opt-out for
	// objects that bypassed admission: the rule depends on spec.replicas, which
	// the scale subresource (kubectl scale, autoscalers) changes without
	// passing the CloneSet webhook. The planner then names the broken rule in
	// its notes. Every other webhook rule is enforced either way.
	SkipBudgetRule bool

	// Strict is the default and has no effect; it is kept so that programs
	// written when SkipBudgetRule was the default still compile.
	//
	// Deprecated: the budget rule is enforced unless SkipBudgetRule is set.
	Strict bool

	// Warn, when set, is called with each warning of the load, in input
	// order: a member of an object (CloneSet, Pod, PersistentVolumeClaim,
	// ControllerRevision, Node) that its API type, in its API version, does
	// not have. The loader ignores such a member, as the API server drops it;
	// kubectl warns about it. Without Warn (and StrictFields) members are not
	// checked at all.
	Warn func(Warning)

	// StrictFields refuses an input with a member its object's API type does
	// not have: the error names each one (file:line, object, field path), as
	// kubectl's --validate=strict refuses it.
	StrictFields bool

	// Now, when set, is the clock of the scenarios read: it replaces the now
	// of a Scenario document and the default, the newest timestamp of the
	// objects (model.Scenario.NowFromObjects).
	Now time.Time

	// MaxInputBytes bounds the total size of the input; 0 means
	// DefaultMaxInputBytes. A larger input is refused with an error naming
	// the source and the limit, before it is parsed (limits.go).
	MaxInputBytes int64
}

// Load reads one scenario stream (YAML documents separated by "---", or JSON
// values) from r with the default Options; source names it in error messages
// (a file name, or "-" for standard input).
func Load(r io.Reader, source string) (*model.Scenario, error) {
	return Options{}.Load(r, source)
}

// LoadBytes is Load for a stream held in memory.
func LoadBytes(data []byte, source string) (*model.Scenario, error) {
	return Options{}.LoadBytes(data, source)
}

// LoadFiles reads several files as one scenario stream, in order, with the
// default Options: their documents are taken together exactly as if the files
// had been concatenated with "---" separators. The path "-" stands for stdin
// (read once, however often it is named).
func LoadFiles(paths []string, stdin io.Reader) (*model.Scenario, error) {
	return Options{}.LoadFiles(paths, stdin)
}

// Load is the package-level Load with these options.
func (o Options) Load(r io.Reader, source string) (*model.Scenario, error) {
	data, err := o.ReadAll(r, source)
	if err != nil {
		return nil, err
	}
	return o.LoadBytes(data, source)
}

// LoadBytes is the package-level LoadBytes with these options.
func (o Options) LoadBytes(data []byte, source string) (*model.Scenario, error) {
	return o.load([]input{{source, data}})
}

// LoadFiles is the package-level LoadFiles with these options.
func (o Options) LoadFiles(paths []string, stdin io.Reader) (*model.Scenario, error) {
	inputs, err := o.readInputs(paths, stdin)
	if err != nil {
		return nil, err
	}
	return o.load(inputs)
}

// readInputs reads the files of LoadFiles and LoadAllFiles; "-" is stdin,
// read once however often it is named.
func (o Options) readInputs(paths []string, stdin io.Reader) ([]input, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input: give at least one file (-f FILE, - for standard input)")
	}
	var inputs []input
	stdinRead := false
	for _, p := range paths {
		if p == "-" {
			if stdinRead {
				continue
			}
			stdinRead = true
			if stdin == nil {
				return nil, errors.New("-: no standard input")
			}
			data, err := o.ReadAll(stdin, "-")
			if err != nil {
				return nil, err
			}
			inputs = append(inputs, input{"-", data})
			continue
		}
		data, err := o.readFile(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{p, data})
	}
	return inputs, nil
}

type input struct {
	source string
	data   []byte
}

// errJSONStream is parseStream's answer for a stream YAML rejects and that
// starts like JSON: the caller reads it as a sequence of JSON values, with
// loader.jsonStream, else parseJSONInput.
var errJSONStream = errors.New("a JSON stream")

// parseStream splits a stream into document nodes. YAML is tried first (JSON
// documents are YAML too); when that fails on text that starts like JSON, it
// returns errJSONStream. Parser panics become errors.
func parseStream(in input) (docs []*yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("%s: cannot parse the input: %v", in.source, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(in.data))
	for {
		var n yaml.Node
		derr := dec.Decode(&n)
		if derr == io.EOF {
			return docs, nil
		}
		if derr != nil {
			if looksLikeJSON(in.data) {
				return nil, errJSONStream
			}
			return nil, fmt.Errorf("%s: invalid YAML: %v", in.source, strings.TrimPrefix(derr.Error(), "yaml: "))
		}
		docs = append(docs, &n)
	}
}

func looksLikeJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// where identifies a document: "file.yaml:12" (line of its first member).
func where(source string, n *yaml.Node) string {
	if n != nil && n.Line > 0 {
		return fmt.Sprintf("%s:%d", source, n.Line)
	}
	return source
}

type located[T any] struct {
	obj   T
	where string
	ns    string
	node  *yaml.Node // the document (CloneSets only)
	src   string     // the source (CloneSets only)
	// owners are the owner references (ControllerRevisions only: the model
	// does not keep them, the claiming rules of LoadAll read them).
	owners []model.OwnerReference
}

type loader struct {
	opts   Options
	budget int
	newest time.Time
	errs   []error
	// sources name the inputs read; seen counts the objects read by kind
	// (every kind, List items included), for the message of an input
	// without a CloneSet.
	sources []string
	seen    kindCounts
	clone   []located[*model.CloneSet]
	ignored []string // CloneSet or Scenario documents of an unknown apiVersion
	scn     []located[*model.Scenario]
	pods    []located[*model.Pod]
	pvcs    []located[*model.PVC]
	revs    []located[*model.Revision]
	nodes   []located[*model.Node]
	jobs    []located[*model.ImagePullJob]

	// quantities are the quantities parsed so far, by text, shared by the
	// documents' decoders.
	quantities map[string]model.Quantity

	// fields finds the unknown fields of the documents (nil: not checked,
	// see Options.Warn and Options.StrictFields).
	fields *fieldCheck
}

func (o Options) load(inputs []input) (*model.Scenario, error) {
	l, err := o.read(inputs)
	if err != nil {
		return nil, err
	}
	return l.assemble()
}

// read decodes every document of the inputs into a loader.
func (o Options) read(inputs []input) (*loader, error) {
	if err := o.checkTotal(inputs); err != nil {
		return nil, err
	}
	l := &loader{budget: baseValues, opts: o, quantities: map[string]model.Quantity{}}
	for _, in := range inputs {
		l.budget += valuesPerByte * len(in.data)
	}
	if o.Warn != nil || o.StrictFields {
		l.fields = &fieldCheck{budget: l.budget}
	}
	for _, in := range inputs {
		l.sources = append(l.sources, in.source)
		docs, err := parseStream(in)
		if err == errJSONStream {
			if l.jsonStream(in) {
				continue
			}
			docs, err = parseJSONInput(in)
		}
		if err != nil {
			return nil, err
		}
		for i, d := range docs {
			l.document(in.source, fmt.Sprintf("document %d", i+1), d, "", "", 0)
		}
	}
	l.reportFields()
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return l, nil
}

// inheritNamespace gives the pods, PVCs, ControllerRevisions and ImagePullJobs read without
// a namespace the namespace ns (kubectl's default for a stream).
func (l *loader) inheritNamespace(ns string) {
	inherit := func(s *string) {
		if *s == "" {
			*s = ns
		}
	}
	for _, p := range l.pods {
		inherit(&p.obj.Namespace)
	}
	for _, p := range l.pvcs {
		inherit(&p.obj.Namespace)
	}
	for i := range l.revs {
		inherit(&l.revs[i].ns)
	}
	for _, j := range l.jobs {
		inherit(&j.obj.Namespace)
	}
}

func (l *loader) fail(format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf(format, args...))
}

// peekString reads a string member without reporting type errors.
func peekString(n *yaml.Node, keys ...string) string {
	for _, k := range keys {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return ""
		}
		var next *yaml.Node
		for _, p := range pairsOf(n) {
			if kn := resolve(p.k); kn != nil && kn.Value == k {
				next = p.v
				break
			}
		}
		n = next
	}
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return ""
	}
	return n.Value
}

// document handles one document (or List item; label says which, "document 2"
// or "document 2 item 5"): defKind/defAPI are the kind and apiVersion a typed
// list (PodList, ...) gives its items.
func (l *loader) document(source, label string, root *yaml.Node, defAPI, defKind string, nesting int) {
	n := resolve(root)
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return // empty document
	}
	if n.Kind != yaml.MappingNode {
		l.fail("%s: %s: expected a Kubernetes object (apiVersion, kind, metadata, ...), got %s", where(source, n), label, describe(n))
		return
	}
	d := &decoder{source: source, budget: &l.budget, times: &l.newest, object: label, quantities: l.quantities}
	v := value{d: d, n: n}
	apiVersion := v.get("apiVersion").str()
	kind := v.get("kind").str()
	if apiVersion == "" && kind == "" {
		apiVersion, kind = defAPI, defKind
	}
	name := peekString(n, "metadata", "name")
	ns := peekString(n, "metadata", "namespace")
	switch {
	case name != "" && ns != "":
		d.object = fmt.Sprintf("%s %s/%s", kind, ns, name)
	case name != "":
		d.object = fmt.Sprintf("%s %s", kind, name)
	case kind != "":
		d.object = fmt.Sprintf("%s (%s)", kind, label)
	}
	if len(d.errs) > 0 {
		l.errs = append(l.errs, d.errs...)
		return
	}
	if kind == "" {
		l.fail("%s: %s: kind: missing: every document must be a Kubernetes object with apiVersion and kind", where(source, n), label)
		return
	}
	loc := where(source, n)
	isList := kind == kindList || (strings.HasSuffix(kind, kindList) && v.get("items").present())
	if !isList {
		l.seen.add(kind)
	}
	if l.fields != nil && !isList {
		l.fields.document(n, apiVersion, kind, source, d.object)
	}
	needName := func() bool {
		if name == "" && peekString(n, "metadata", "generateName") == "" {
			d.errorf(n, "metadata.name", "required")
			return false
		}
		if name == "" {
			d.errorf(n, "metadata.name", "required (generateName is not enough: the object does not exist yet)")
			return false
		}
		return true
	}

	switch {
	case isList:
		if nesting >= maxListNesting {
			l.fail("%s: %s: lists nested more than %d levels deep", loc, label, maxListNesting)
			return
		}
		itemKind := ""
		if kind != kindList {
			itemKind = strings.TrimSuffix(kind, kindList)
		}
		for i, it := range v.get("items").items() {
			l.document(source, fmt.Sprintf("%s item %d", label, i+1), it.n, apiVersion, itemKind, nesting+1)
		}
	case kind == kindCloneSet:
		if apiVersion != model.APIVersionV1alpha1 && apiVersion != model.APIVersionV1beta1 {
			l.ignored = append(l.ignored, fmt.Sprintf("%s: CloneSet of apiVersion %q (want %s or %s)", loc, apiVersion, model.APIVersionV1alpha1, model.APIVersionV1beta1))
			return
		}
		cs := decodeCloneSet(v, apiVersion)
		if needName() {
			l.clone = append(l.clone, located[*model.CloneSet]{cs, loc, cs.Namespace, n, source, nil})
		}
	case kind == kindScenario:
		if apiVersion != apiScenario {
			l.ignored = append(l.ignored, fmt.Sprintf("%s: Scenario of apiVersion %q (want %s)", loc, apiVersion, apiScenario))
			return
		}
		l.scn = append(l.scn, located[*model.Scenario]{decodeScenario(v), loc, "", nil, "", nil})
	case apiVersion == "v1" && kind == kindPod:
		p := decodePod(v)
		if needName() {
			l.pods = append(l.pods, located[*model.Pod]{p, loc, p.Namespace, nil, "", nil})
		}
	case apiVersion == "v1" && kind == kindPVC:
		p := decodePVC(v)
		if needName() {
			l.pvcs = append(l.pvcs, located[*model.PVC]{p, loc, p.Namespace, nil, "", nil})
		}
	case apiVersion == "apps/v1" && kind == kindRevision:
		r, rns, owners := decodeRevision(v)
		if needName() {
			l.revs = append(l.revs, located[*model.Revision]{r, loc, rns, nil, "", owners})
		}
	case apiVersion == "v1" && kind == kindNode:
		nd := decodeNode(v)
		if needName() {
			l.nodes = append(l.nodes, located[*model.Node]{nd, loc, "", nil, "", nil})
		}
	case (apiVersion == model.APIVersionV1alpha1 || apiVersion == model.APIVersionV1beta1) && kind == kindJob:
		j := decodeImagePullJob(v)
		if needName() {
			l.jobs = append(l.jobs, located[*model.ImagePullJob]{j, loc, j.Namespace, nil, "", nil})
		}
	default:
		// Unknown kinds are ignored.
	}
	l.errs = append(l.errs, d.errs...)
}

// decodeScenario reads the clonesetcore/v1alpha1 Scenario settings.
func decodeScenario(v value) *model.Scenario {
	s := &model.Scenario{Gates: model.DefaultFeatureGates()}
	s.Description = v.get("description").str()
	if now := v.get("now"); now.present() {
		// The explicit clock must not count as an object timestamp.
		saved := v.d.times
		v.d.times = nil
		s.Now = now.timestamp()
		v.d.times = saved
		if s.Now.IsZero() && len(v.d.errs) == 0 {
			v.d.errorf(now.n, "now", "expected an RFC 3339 time, got %s", describe(now.n))
		}
	}
	for _, e := range v.get("featureGates").entries() {
		on := e.val.boolean()
		if err := s.Gates.Set(e.key, on); err != nil {
			v.d.errorf(e.val.n, e.val.path, "%v", err)
		}
	}
	ctl := v.get("controller")
	ctl.object()
	s.Controller.ScalingExcludePreparingDelete = ctl.get("scalingExcludePreparingDelete").boolean()
	return s
}

// assemble checks the set of objects, applies defaults, conversion and
// validation, and sorts pods and PVCs into the CloneSet's and the others.
func (l *loader) assemble() (*model.Scenario, error) {
	switch len(l.clone) {
	case 0:
		return nil, l.noCloneSet()
	case 1:
	default:
		var list []string
		for _, c := range l.clone {
			list = append(list, fmt.Sprintf("%s (%s)", objName(c.obj.Namespace, c.obj.Name), c.where))
		}
		return nil, fmt.Errorf("%d CloneSets in the input, need exactly one: %s (LoadAll reads a stream of many)", len(l.clone), strings.Join(list, ", "))
	}
	if len(l.scn) > 1 {
		return nil, fmt.Errorf("%d Scenario documents in the input, at most one is allowed: %s and %s", len(l.scn), l.scn[0].where, l.scn[1].where)
	}

	cs := l.clone[0].obj
	model.DefaultStored(cs)
	l.inheritNamespace(cs.Namespace)

	if err := l.duplicates(); err != nil {
		return nil, err
	}

	if err := l.validate(l.clone[0], l.allPods()); err != nil {
		return nil, err
	}

	scn := l.settings()
	scn.CloneSet = cs
	l.sortOut(scn)
	return scn, nil
}

func objName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func duplicateNames[T any](kind string, list []located[T], key func(T) string) error {
	seen := map[string]string{}
	for _, x := range list {
		k := key(x.obj)
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%s: %s %s: metadata.name: Duplicate value: a second %s with this name (the first is at %s); names are unique in a cluster", x.where, kind, k, kind, first)
		}
		seen[k] = x.where
	}
	return nil
}

func duplicateNamesNS(kind string, list []located[*model.Revision]) error {
	seen := map[string]string{}
	for _, x := range list {
		k := x.ns + "/" + x.obj.Name
		if first, ok := seen[k]; ok {
			return fmt.Errorf("%s: %s %s: metadata.name: Duplicate value: a second %s with this name (the first is at %s); names are unique in a cluster", x.where, kind, k, kind, first)
		}
		seen[k] = x.where
	}
	return nil
}

// sortOut puts into scn the objects that belong to the CloneSet (scenario-format
// section 1) and lists the others in scn.SetAside.
func (l *loader) sortOut(scn *model.Scenario) {
	cs := scn.CloneSet
	for _, lp := range l.pods {
		if reason := PodLeftOut(cs, lp.obj); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: kindPod, Name: lp.obj.Name, Reason: reason})
			continue
		}
		scn.Pods = append(scn.Pods, lp.obj)
	}
	for _, lp := range l.pvcs {
		if reason := PVCLeftOut(cs, lp.obj, scn.Pods); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: kindPVC, Name: lp.obj.Name, Reason: reason})
			continue
		}
		scn.PVCs = append(scn.PVCs, lp.obj)
	}
	for _, lr := range l.revs {
		if lr.ns != cs.Namespace {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: kindRevision, Name: lr.obj.Name,
				Reason: otherNamespace(lr.ns, cs)})
			continue
		}
		scn.Revisions = append(scn.Revisions, lr.obj)
	}
	for _, ln := range l.nodes {
		scn.Nodes = append(scn.Nodes, ln.obj)
	}
	for _, lj := range l.jobs {
		if reason := ImagePullJobLeftOut(cs, lj.obj); reason != "" {
			scn.SetAside = append(scn.SetAside, model.SetAside{Kind: kindJob, Name: lj.obj.Name, Reason: reason})
			continue
		}
		scn.ImagePullJobs = append(scn.ImagePullJobs, lj.obj)
	}
}

// ownedByKeptPod reports whether a Pod controller reference designates one of
// the pods kept for the CloneSet (by uid when both carry one, else by name).
func ownedByKeptPod(ref *model.OwnerReference, pods []*model.Pod) bool {
	for _, p := range pods {
		if ref.UID != "" && p.UID != "" {
			if ref.UID == p.UID {
				return true
			}
			continue
		}
		if ref.Name == p.Name {
			return true
		}
	}
	return false
}

// nodeAt returns the node of a field path ("spec.template.spec.containers[0].image",
// "metadata.labels[app]") in a document, or the deepest node of the path that
// the document has, so that messages can point at a line.
func nodeAt(root *yaml.Node, path string) *yaml.Node {
	n := resolve(root)
	for _, part := range splitPath(path) {
		next := (*yaml.Node)(nil)
		switch {
		case n == nil:
		case n.Kind == yaml.MappingNode:
			for _, p := range pairsOf(n) {
				if k := resolve(p.k); k != nil && k.Value == part {
					next = resolve(p.v)
					break
				}
			}
		case n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(n.Content) {
				next = resolve(n.Content[i])
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// splitPath splits "a.b[0].c[key.x]" into a, b, 0, c, key.x.
func splitPath(path string) []string {
	var parts []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			parts = append(parts, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '.':
			flush()
		case '[':
			flush()
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				cur.WriteString(path[i+1:])
				i = len(path)
				break
			}
			parts = append(parts, path[i+1:i+j])
			i += j
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return parts
}
