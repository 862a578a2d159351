package admission

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/podtemplate"
)

// Gates are the feature gates of kruise that change what its CloneSet
// webhooks do. The zero value is kruise's defaults (all three off).
type Gates struct {
	// TemplateNoDefaults: the mutating webhook never injects the pod
	// template's and claim templates' defaults (the CloneSet's own
	// defaults still apply).
	TemplateNoDefaults bool
	// DefaultHostNetworkHostPortsInPodTemplates: the template defaults give
	// every container port of a hostNetwork pod hostPort = containerPort.
	DefaultHostNetworkHostPortsInPodTemplates bool
	// ResourcesDeletionProtection: the validating webhook refuses deleting a
	// CloneSet labeled policy.kruise.io/delete-protection=Always, or
	// =Cascading while spec.replicas > 0.
	ResourcesDeletionProtection bool
}

// gateName is a gate's name as kruise's --feature-gates flag writes it,
// with where Gates keeps it.
type gateName struct {
	name string
	gate func(*Gates) *bool
}

// gateNames are the gates of Gates, by name.
var gateNames = []gateName{
	{"DefaultHostNetworkHostPortsInPodTemplates", func(g *Gates) *bool { return &g.DefaultHostNetworkHostPortsInPodTemplates }},
	{"ResourcesDeletionProtection", func(g *Gates) *bool { return &g.ResourcesDeletionProtection }},
	{"TemplateNoDefaults", func(g *Gates) *bool { return &g.TemplateNoDefaults }},
}

// ParseGates reads gates as kruise's --feature-gates flag takes them:
// "Name=true,Other=false" (spaces around the parts allowed; "" is the
// defaults). A name other than the three of Gates, or a value other than
// true or false, is an error naming the known ones.
func ParseGates(s string) (Gates, error) {
	var g Gates
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		on, err := strconv.ParseBool(val)
		if !ok || err != nil {
			return Gates{}, fmt.Errorf("feature gate %q: want NAME=true or NAME=false", part)
		}
		i := slices.IndexFunc(gateNames, func(n gateName) bool { return n.name == name })
		if i < 0 {
			known := make([]string, len(gateNames))
			for j, n := range gateNames {
				known[j] = n.name
			}
			return Gates{}, fmt.Errorf("feature gate %q: not one that changes the CloneSet webhooks (%s)", name, strings.Join(known, ", "))
		}
		*gateNames[i].gate(&g) = on
	}
	return g, nil
}

// String writes the gates that are on as ParseGates reads them ("" for the
// defaults).
func (g Gates) String() string {
	var on []string
	for _, n := range gateNames {
		if *n.gate(&g) {
			on = append(on, n.name+"=true")
		}
	}
	return strings.Join(on, ",")
}

// The template defaults: package podtemplate's core/v1 defaults of a pod
// template and of a claim template (docs/spec/pod-template-defaults.md),
// variables so that tests can see where they are applied.
var (
	defaultPodTemplate   = podtemplate.Default
	defaultClaimTemplate = podtemplate.DefaultClaimTemplate
)

// Default is kruise's mutating webhook on a create (old nil) or an update
// (old is the stored object): it returns obj with the CloneSet defaults of
// its version (docs/spec/admission-and-conversion.md 1) and, unless
// TemplateNoDefaults is on, the defaults of the pod template and the claim
// templates, which an update gets only when its template differs from
// old's. obj and old must be of the same version; obj is not changed.
func Default(obj, old *Object, gates Gates) (*Object, error) {
	out, _, err := defaultObject(obj, old, gates)
	return out, err
}

// defaultObject is Default, and whether the template defaults rewrote how
// a quantity holds its value where its JSON stays the same (see
// Request.Default).
func defaultObject(obj, old *Object, gates Gates) (out *Object, rewrites bool, err error) {
	if err := obj.check(); err != nil {
		return nil, false, err
	}
	if old != nil {
		if err := old.check(); err != nil {
			return nil, false, err
		}
	}
	if old != nil && old.version != obj.version {
		return nil, false, fmt.Errorf("%s: the old object is %s, the object %s", obj, old.version.APIVersion(), obj.version.APIVersion())
	}
	tree := copyTree(obj.tree).(map[string]any)
	spec := tree["spec"].(map[string]any)
	if spec["replicas"] == nil {
		spec["replicas"] = int64(model.DefaultReplicas)
	}
	if spec["revisionHistoryLimit"] == nil {
		spec["revisionHistoryLimit"] = int64(model.DefaultRevisionHistoryLimit)
	}
	inject, err := injectTemplateDefaults(obj, old, gates)
	if err != nil {
		return nil, false, fmt.Errorf("%s: spec.template: %w", obj, err)
	}
	if inject {
		if rewrites, err = defaultTemplates(spec, obj, gates); err != nil {
			return nil, false, fmt.Errorf("%s: %w", obj, err)
		}
	}
	us := spec["updateStrategy"].(map[string]any)
	if obj.version == V1alpha1 {
		switch us["type"] {
		case nil:
			us["type"] = model.V1alpha1TypeReCreate
		case model.V1alpha1TypeInPlaceIfPossible, model.V1alpha1TypeInPlaceOnly:
			setAbsent(us, "inPlaceUpdateStrategy", map[string]any{})
		}
		setBudgetDefaults(us)
	} else {
		setAbsent(us, "type", model.UpdateStrategyRollingUpdate)
		if us["type"] == model.UpdateStrategyRollingUpdate {
			setAbsent(us, "rollingUpdate", map[string]any{})
			ru := us["rollingUpdate"].(map[string]any)
			setAbsent(ru, "podUpdatePolicy", model.PolicyReCreate)
			if p := ru["podUpdatePolicy"]; p == model.PolicyInPlaceIfPossible || p == model.PolicyInPlaceOnly {
				setAbsent(ru, "inPlaceUpdateStrategy", map[string]any{})
			}
			setBudgetDefaults(ru)
		}
	}
	return &Object{version: obj.version, tree: tree}, rewrites, nil
}

// injectTemplateDefaults is the webhook's choice: never with
// TemplateNoDefaults, always on a create, on an update when the typed
// template differs from old's as reflect.DeepEqual sees the Go values
// (podtemplate.DecodedKey: an empty list against an absent one, a
// quantity's spelling, a time's fraction of a second count, which the
// typed encoding does not keep).
func injectTemplateDefaults(obj, old *Object, gates Gates) (bool, error) {
	if gates.TemplateNoDefaults {
		return false, nil
	}
	if old == nil {
		return true, nil
	}
	key, err := podtemplate.DecodedKey(obj.templateAsRead())
	if err != nil {
		return false, err
	}
	oldKey, err := podtemplate.DecodedKey(old.templateAsRead())
	return key != oldKey, err
}

// defaultTemplates injects the pod template's and the claim templates'
// defaults into spec (kruise's SetDefaultPodSpec and the claims'
// SetDefaults_PersistentVolumeClaim and resource lists), from obj's
// templates as read (the rounding of quantities keeps the suffix family
// read); rewrites says whether the rounding rewrote how a quantity holds
// its value.
func defaultTemplates(spec map[string]any, obj *Object, gates Gates) (rewrites bool, err error) {
	read := obj.templateAsRead()
	t, err := defaultPodTemplate(read)
	if err != nil {
		return false, fmt.Errorf("spec.template: %w", err)
	}
	if gates.DefaultHostNetworkHostPortsInPodTemplates {
		defaultHostNetworkPorts(t)
	}
	spec["template"] = t
	rewrites = podtemplate.DefaultRewritesQuantities(read)
	claims, _ := spec["volumeClaimTemplates"].([]any)
	for i := range claims {
		read := obj.claimAsRead(i)
		d, err := defaultClaimTemplate(read)
		if err != nil {
			return false, fmt.Errorf("spec.volumeClaimTemplates[%d]: %w", i, err)
		}
		claims[i] = d
		rewrites = rewrites || podtemplate.DefaultClaimRewritesQuantities(read)
	}
	return rewrites, nil
}

// defaultHostNetworkPorts gives every container and init container port of
// a hostNetwork template hostPort = containerPort where hostPort is 0
// (gate DefaultHostNetworkHostPortsInPodTemplates).
func defaultHostNetworkPorts(t map[string]any) {
	spec, _ := t["spec"].(map[string]any)
	if spec["hostNetwork"] != true {
		return
	}
	for _, group := range []string{"containers", "initContainers"} {
		cs, _ := spec[group].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			ports, _ := cm["ports"].([]any)
			for _, p := range ports {
				pm, _ := p.(map[string]any)
				if hp, ok := canonicalInt(pm["hostPort"]); pm != nil && (!ok || hp == 0) {
					pm["hostPort"] = pm["containerPort"]
				}
			}
		}
	}
}

// setBudgetDefaults sets partition 0, maxUnavailable "20%" and maxSurge 0
// where they are absent (both versions).
func setBudgetDefaults(m map[string]any) {
	setAbsent(m, "partition", int64(0))
	setAbsent(m, "maxUnavailable", model.DefaultMaxUnavailable)
	setAbsent(m, "maxSurge", int64(0))
}

// setAbsent sets m[key] to v when the member is absent (a nil pointer, an
// empty omitempty value) or null.
func setAbsent(m map[string]any, key string, v any) {
	if m[key] == nil {
		m[key] = v
	}
}
