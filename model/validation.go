package model

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clonecore/cloneset/podtemplate"
)

// ErrorType classifies a FieldError like Kubernetes' field.ErrorType.
type ErrorType string

// The field error types the validating webhook produces.
const (
	// ErrorTypeInvalid is a value that is syntactically or semantically wrong.
	ErrorTypeInvalid ErrorType = "Invalid value"
	// ErrorTypeRequired is a missing required value.
	ErrorTypeRequired ErrorType = "Required value"
	// ErrorTypeForbidden is a value that may not be set (or changed).
	ErrorTypeForbidden ErrorType = "Forbidden"
	// ErrorTypeNotSupported is a value outside a closed set of supported values.
	ErrorTypeNotSupported ErrorType = "Unsupported value"
	// ErrorTypeDuplicate is a value that must be unique and is not.
	ErrorTypeDuplicate ErrorType = "Duplicate value"
	// ErrorTypeNotFound is a reference to something that does not exist.
	ErrorTypeNotFound ErrorType = "Not found"
)

// CauseType is the type's name in an API status (metav1.CauseType, the
// value of k8s.io/apimachinery's field.ErrorType): "FieldValueInvalid",
// "FieldValueRequired", ...; "" for a type it does not know.
func (t ErrorType) CauseType() string {
	switch t {
	case ErrorTypeInvalid:
		return "FieldValueInvalid"
	case ErrorTypeRequired:
		return "FieldValueRequired"
	case ErrorTypeForbidden:
		return "FieldValueForbidden"
	case ErrorTypeNotSupported:
		return "FieldValueNotSupported"
	case ErrorTypeDuplicate:
		return "FieldValueDuplicate"
	case ErrorTypeNotFound:
		return "FieldValueNotFound"
	}
	return ""
}

// FieldError is one validation failure: the field path (for example
// "spec.updateStrategy.maxUnavailable"), its type, the offending value and the
// message of the upstream webhook.
type FieldError struct {
	// Path is the dotted field path, list indexes in brackets.
	Path string
	// Type is the kind of failure.
	Type ErrorType
	// BadValue is the offending value as Kubernetes prints it (strings quoted);
	// empty when the type prints none (Required, Forbidden).
	BadValue string
	// Message is the upstream message (may be empty for Required).
	Message string
	// Rule is the id of the rule of docs/spec/lifecycle-status-validation.md 4.4/4.5 that
	// produced the error ("A2", "B17", ...).
	Rule string
}

// Error renders the error the way Kubernetes does:
// "<path>: <type>: <value>: <message>", omitting empty parts.
func (e FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(string(e.Type))
	if e.BadValue != "" && e.Type != ErrorTypeRequired && e.Type != ErrorTypeForbidden {
		b.WriteString(": ")
		b.WriteString(e.BadValue)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// FieldErrors is the list of all failures of one validation, in rule order.
type FieldErrors []FieldError

// Error joins the errors with "; ".
func (l FieldErrors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// HasRule reports whether some error came from the given rule id.
func (l FieldErrors) HasRule(rule string) bool {
	for _, e := range l {
		if e.Rule == rule {
			return true
		}
	}
	return false
}

// rawValue is a bad value printed as is (for example null).
type rawValue string

func quoteValue(v any) string {
	switch t := v.(type) {
	case rawValue:
		return string(t)
	case string:
		return strconv.Quote(t)
	case IntOrPercent:
		if t.IsString {
			return strconv.Quote(t.Str)
		}
		return strconv.Itoa(int(t.Int))
	case *IntOrPercent:
		if t == nil {
			return "null"
		}
		return quoteValue(*t)
	case []string:
		q := make([]string, len(t))
		for i, s := range t {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ",") + "]"
	default:
		return fmt.Sprint(v)
	}
}

func errInvalid(rule, path string, value any, msg string) FieldError {
	return FieldError{Path: path, Type: ErrorTypeInvalid, BadValue: quoteValue(value), Message: msg, Rule: rule}
}

func errRequired(rule, path, msg string) FieldError {
	return FieldError{Path: path, Type: ErrorTypeRequired, Message: msg, Rule: rule}
}

func errForbidden(rule, path, msg string) FieldError {
	return FieldError{Path: path, Type: ErrorTypeForbidden, Message: msg, Rule: rule}
}

func errNotSupported(rule, path string, value any, supported ...string) FieldError {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = strconv.Quote(s)
	}
	return FieldError{Path: path, Type: ErrorTypeNotSupported, BadValue: quoteValue(value),
		Message: "supported values: " + strings.Join(q, ", "), Rule: rule}
}

func errDuplicate(rule, path string, value any) FieldError {
	return FieldError{Path: path, Type: ErrorTypeDuplicate, BadValue: quoteValue(value), Rule: rule}
}

const msgNonNegative = "must be greater than or equal to 0"

// Validate runs the create-time rules of the upstream validating webhook for the
// object's API version (docs/spec/lifecycle-status-validation.md 4.4 rules A0-A18 for
// apps.kruise.io/v1alpha1, 4.5 rules B0-B20 for apps.kruise.io/v1beta1) on a
// defaulted object (see SetDefaults) and returns every failure. The v1alpha1
// rules read the as-written strategy in cs.V1alpha1; A10 (podsToDelete) looks
// the names up in pods, which should hold every pod of the scenario, not only
// the CloneSet's. An object of another API version gets a single error.
func Validate(cs *CloneSet, pods []*Pod) FieldErrors {
	return ValidateAdmission(nil, cs, pods)
}

// ValidateStored validates an object read back from a cluster: the create rules
// of Validate, except that A10 accepts podsToDelete names whose pod is gone or
// terminating. Such names were admitted when they were added and stay in the
// stored object until the controller drops them after the pod is gone
// (docs/spec/scale-and-budgets.md 6.7). A name of a pod that belongs to another controller
// is still an error. A container request above its limit (A6-requests,
// B6-requests) and a resizePolicy on an init container (A6-initResize,
// B6-initResize: IsToleratedWhenStored) are accepted: the controller plans such
// objects as any other. Scenario loading uses this rule set.
func ValidateStored(cs *CloneSet, pods []*Pod) FieldErrors {
	return validate(nil, cs, pods, true)
}

// DefaultNamespace is the namespace of an object that names none, as
// kubectl sends it.
const DefaultNamespace = "default"

// DefaultStored gives a CloneSet as read from a manifest or a cluster
// (manifest's decoders, before defaults) what the API server gave the
// stored object: the namespace DefaultNamespace when it has none, the
// webhook's defaults of its version (SetDefaults) and, for v1alpha1, the
// conversion to the internal shape (ConvertV1alpha1). It is idempotent.
// Every reader of stored CloneSets (the manifest loader, the reference
// controller) goes through it, then through StoredOptions.Validate.
func DefaultStored(cs *CloneSet) {
	if cs == nil {
		return
	}
	if cs.Namespace == "" {
		cs.Namespace = DefaultNamespace
	}
	SetDefaults(cs)
	ConvertV1alpha1(cs)
}

// StoredOptions are the opt-outs of the rules a stored object is held to.
// The zero value is ValidateStored.
type StoredOptions struct {
	// SkipBudgetRule accepts a CloneSet that breaks only the webhook's
	// budget rule, "maxUnavailable and maxSurge should not both be less than
	// 1" (IsBudgetRule: A17, B17), which depends on spec.replicas, which the
	// scale subresource changes without passing the webhook.
	SkipBudgetRule bool
}

// Validate is ValidateStored without the rules o skips, on a CloneSet
// DefaultStored prepared.
func (o StoredOptions) Validate(cs *CloneSet, pods []*Pod) FieldErrors {
	errs := ValidateStored(cs, pods)
	if o.SkipBudgetRule {
		errs = slices.DeleteFunc(errs, func(e FieldError) bool { return IsBudgetRule(e.Rule) })
	}
	return errs
}

// IsBudgetRule reports whether a rule id is the webhook's budget rule: A17
// or B17 (maxUnavailable and maxSurge both below 1).
func IsBudgetRule(rule string) bool { return rule == "A17" || rule == "B17" }

// ValidateAdmission is the whole verdict of the webhook: the create rules when
// old is nil; otherwise the update rules of ValidateUpdate followed by the
// create rules on cs, with A10 checking only the podsToDelete names that old
// does not list already.
func ValidateAdmission(old, cs *CloneSet, pods []*Pod) FieldErrors {
	return validate(old, cs, pods, false)
}

func validate(old, cs *CloneSet, pods []*Pod, stored bool) FieldErrors {
	if cs == nil {
		return FieldErrors{errRequired("", "", "no CloneSet")}
	}
	var errs FieldErrors
	if old != nil {
		errs = append(errs, ValidateUpdate(old, cs)...)
	}
	switch cs.APIVersion {
	case APIVersionV1alpha1:
		errs = append(errs, validateV1alpha1(cs, old, pods, stored)...)
	case APIVersionV1beta1:
		errs = append(errs, validateV1beta1(cs)...)
	default:
		errs = append(errs, errNotSupported("", "apiVersion", cs.APIVersion, APIVersionV1alpha1, APIVersionV1beta1))
	}
	if stored {
		errs = slices.DeleteFunc(errs, func(e FieldError) bool { return IsToleratedWhenStored(e.Rule) })
	}
	return errs
}

// IsRequestAboveLimit reports whether a rule id is A6-requests or
// B6-requests: a container's request above its limit, which the webhook's
// pod template validation refuses but the controller builds revisions and
// pods for (testdata/conformance-revnames records upstream's revisions of
// such CloneSets). ValidateStored tolerates it; the planner names it in a
// note.
func IsRequestAboveLimit(rule string) bool { return rule == "A6-requests" || rule == "B6-requests" }

// IsToleratedWhenStored reports whether a rule id is one of the pod template
// rules the webhook enforces but the controller builds revisions and pods
// through, which ValidateStored therefore accepts: a request above its limit
// (IsRequestAboveLimit) and a resizePolicy on an init container
// (A6-initResize, B6-initResize; testdata/conformance-revnames 0011 and
// 0032 record upstream's revisions of such CloneSets).
func IsToleratedWhenStored(rule string) bool {
	return IsRequestAboveLimit(rule) || rule == "A6-initResize" || rule == "B6-initResize"
}

// ValidateUpdate runs the update-only rules on a change from old to cs (both
// defaulted): A19 (name, namespace and uid are immutable), A20 (only replicas,
// template, scaleStrategy, updateStrategy, minReadySeconds, lifecycle,
// revisionHistoryLimit, volumeClaimTemplates and progressDeadlineSeconds may
// change: the selector is immutable) and, for v1alpha1, A21 (with pod update
// policy InPlaceOnly the template spec may only change container images). It
// does not repeat the create rules; ValidateAdmission runs both.
func ValidateUpdate(old, cs *CloneSet) FieldErrors {
	if old == nil || cs == nil {
		return nil
	}
	var errs FieldErrors
	for _, f := range []struct{ path, o, n string }{
		{"metadata.name", old.Name, cs.Name},
		{"metadata.namespace", old.Namespace, cs.Namespace},
		{"metadata.uid", old.UID, cs.UID},
	} {
		if f.o != f.n {
			errs = append(errs, errInvalid("A19", f.path, f.n, "field is immutable"))
		}
	}
	if !selectorsEqual(old.Spec.Selector, cs.Spec.Selector) {
		errs = append(errs, errForbidden("A20", "spec", "updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit' are forbidden"))
	}
	if cs.APIVersion == APIVersionV1alpha1 {
		if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil && cs.Spec.UpdateStrategy.Type != UpdateStrategyOnDelete &&
			ru.PodUpdatePolicy == PolicyInPlaceOnly && old.Spec.Template.Raw != nil && cs.Spec.Template.Raw != nil {
			if op, path, ok := firstForbiddenInPlaceOnlyChange(old.Spec.Template.Raw["spec"], cs.Spec.Template.Raw["spec"]); ok {
				errs = append(errs, errForbidden("A21", "spec", fmt.Sprintf("only allowed to update images in spec for InPlaceOnly, but found %s %s", op, path)))
			}
		}
	}
	return errs
}

// validateV1alpha1 is A0-A18 (A10 against pods, skipping names old lists).
func validateV1alpha1(cs *CloneSet, old *CloneSet, pods []*Pod, stored bool) FieldErrors {
	errs := validateCommon(cs, "A")
	f := v1alpha1View(cs)
	replicas := cs.Spec.DesiredReplicas()

	// A9, A10: podsToDelete.
	path := "spec.scaleStrategy.podsToDelete"
	if dups := duplicates(cs.Spec.ScaleStrategy.PodsToDelete); len(dups) > 0 {
		errs = append(errs, errInvalid("A9", path, cs.Spec.ScaleStrategy.PodsToDelete, fmt.Sprintf("duplicated items %v", dups)))
	} else {
		var known map[string]bool
		if old != nil {
			known = map[string]bool{}
			for _, n := range old.Spec.ScaleStrategy.PodsToDelete {
				known[n] = true
			}
		}
		find := podFinder(cs.Namespace, pods, len(cs.Spec.ScaleStrategy.PodsToDelete))
		for _, name := range cs.Spec.ScaleStrategy.PodsToDelete {
			if known[name] {
				continue
			}
			if msg := checkPodToDelete(cs, name, find, stored); msg != "" {
				errs = append(errs, errInvalid("A10", path, name, msg))
			}
		}
	}

	// A11: type.
	switch f.UpdateStrategyType {
	case V1alpha1TypeReCreate, V1alpha1TypeInPlaceIfPossible, V1alpha1TypeInPlaceOnly:
	default:
		errs = append(errs, errInvalid("A11", "spec.updateStrategy.type", f.UpdateStrategyType, "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'"))
	}

	// A12-A17.
	u := f.UpdateStrategy
	errs = append(errs, validateStrategyBody(&u, "spec.updateStrategy", replicas, f.UpdateStrategyType == V1alpha1TypeInPlaceOnly,
		"A", "can not use maxSurge with strategy type InPlaceOnly", true)...)

	// A18: progressDeadlineSeconds.
	if pds := cs.Spec.ProgressDeadlineSeconds; pds != nil {
		p := "spec.progressDeadlineSeconds"
		if *pds < 0 {
			errs = append(errs, errInvalid("A18", p, *pds, msgNonNegative))
		}
		if *pds != MaxInt32 && *pds <= cs.Spec.MinReadySeconds {
			errs = append(errs, errInvalid("A18", p, *pds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// checkPodToDelete is A10 for one name: "" when the pod is acceptable. For a
// stored object, a gone or terminating pod is acceptable (see ValidateStored).
func checkPodToDelete(cs *CloneSet, name string, find func(name string) *Pod, stored bool) string {
	pod := find(name)
	if stored && (pod == nil || !pod.DeletionTimestamp.IsZero()) {
		return ""
	}
	if pod == nil {
		return fmt.Sprintf("find pod %s failed: pods %q not found", name, name)
	}
	if !pod.DeletionTimestamp.IsZero() {
		return fmt.Sprintf("find pod %s already terminating", name)
	}
	if !ControllerRef(pod.OwnerReferences).OwnedBy(cs) {
		return fmt.Sprintf("find pod %s owner is not this CloneSet", name)
	}
	return ""
}

// podFinder returns a function that finds the first of pods with the given
// name in namespace ns, for lookups names: it scans pods for a few names and
// indexes them once for more, so that A10 stays linear in the pods.
func podFinder(ns string, pods []*Pod, lookups int) func(name string) *Pod {
	if lookups <= 4 {
		return func(name string) *Pod {
			for _, p := range pods {
				if p != nil && p.Name == name && p.Namespace == ns {
					return p
				}
			}
			return nil
		}
	}
	byName := make(map[string]*Pod, len(pods))
	for _, p := range pods {
		if p == nil || p.Namespace != ns {
			continue
		}
		if _, dup := byName[p.Name]; !dup {
			byName[p.Name] = p
		}
	}
	return func(name string) *Pod { return byName[name] }
}

// validateV1beta1 is B0-B20.
func validateV1beta1(cs *CloneSet) FieldErrors {
	errs := validateCommon(cs, "B")
	replicas := cs.Spec.DesiredReplicas()

	// B9: podsToDelete duplicates only.
	if dups := duplicates(cs.Spec.ScaleStrategy.PodsToDelete); len(dups) > 0 {
		errs = append(errs, errInvalid("B9", "spec.scaleStrategy.podsToDelete", cs.Spec.ScaleStrategy.PodsToDelete, fmt.Sprintf("duplicated items %v", dups)))
	}

	// B10: type.
	us := cs.Spec.UpdateStrategy
	switch us.Type {
	case "", UpdateStrategyRollingUpdate, UpdateStrategyOnDelete:
	default:
		errs = append(errs, errInvalid("B10", "spec.updateStrategy.type", us.Type, "must be 'RollingUpdate' or 'OnDelete'"))
	}
	ru := us.RollingUpdate
	if ru == nil {
		return errs
	}
	base := "spec.updateStrategy.rollingUpdate"
	// B11: podUpdatePolicy.
	switch ru.PodUpdatePolicy {
	case "", PolicyReCreate, PolicyInPlaceIfPossible, PolicyInPlaceOnly:
	default:
		errs = append(errs, errInvalid("B11", base+".podUpdatePolicy", ru.PodUpdatePolicy, "must be 'ReCreate', 'InPlaceIfPossible' or 'InPlaceOnly'"))
	}
	// B12-B17.
	errs = append(errs, validateStrategyBody(ru, base, replicas, ru.PodUpdatePolicy == PolicyInPlaceOnly,
		"B", "can not use maxSurge with podUpdatePolicy InPlaceOnly", false)...)
	// B18-B20: image pre-download settings.
	if ip := ru.InPlaceUpdateStrategy; ip != nil {
		p := base + ".inPlaceUpdateStrategy"
		if par := ip.ImagePreDownloadParallelism; par != nil {
			pp := p + ".imagePreDownloadParallelism"
			if par.IsString {
				if strings.HasSuffix(par.Str, "%") {
					errs = append(errs, errInvalid("B18", pp, *par, "imagePreDownloadParallelism does not support percentage value"))
				} else if v, err := strconv.Atoi(par.Str); err != nil {
					errs = append(errs, errInvalid("B18", pp, *par, fmt.Sprintf("imagePreDownloadParallelism must be a valid integer: %v", err)))
				} else if v < 0 {
					errs = append(errs, errInvalid("B18", pp, *par, "imagePreDownloadParallelism must be non-negative"))
				}
			} else if par.Int < 0 {
				errs = append(errs, errInvalid("B18", pp, *par, "imagePreDownloadParallelism must be non-negative"))
			}
		}
		if t := ip.ImagePreDownloadTimeoutSeconds; t != nil && *t < 0 {
			errs = append(errs, errInvalid("B19", p+".imagePreDownloadTimeoutSeconds", *t, msgNonNegative))
		}
		if m := ip.ImagePreDownloadMinUpdatedReadyPods; m != nil && *m < 0 {
			errs = append(errs, errInvalid("B20", p+".imagePreDownloadMinUpdatedReadyPods", *m, msgNonNegative))
		}
	}
	return errs
}

// validateStrategyBody checks partition, priority, scatter, maxUnavailable and
// maxSurge (A12-A17 / B12-B17). surgeRescues selects the v1alpha1 form of the
// both-below-1 rule; the v1beta1 form reads maxSurge as 0 [quirk B17].
func validateStrategyBody(u *RollingUpdateStrategy, base string, replicas int, inPlaceOnly bool, v, surgeMsg string, surgeRescues bool) FieldErrors {
	var errs FieldErrors
	rule := func(n int) string { return v + strconv.Itoa(n) }

	// partition
	pp := base + ".partition"
	if u.Partition == nil {
		errs = append(errs, errInvalid(rule(12), pp, rawValue("null"), "failed GetScaledValueFromIntOrPercent for partition: nil value for IntOrString"))
	} else if p, err := u.Partition.ScaledValueKruise(replicas, true); err != nil {
		errs = append(errs, errInvalid(rule(12), pp, *u.Partition, "failed GetScaledValueFromIntOrPercent for partition: "+err.Error()))
	} else if p < 0 {
		errs = append(errs, errInvalid(rule(12), pp, p, msgNonNegative))
	}

	errs = append(errs, validatePriority(u.PriorityStrategy, base+".priorityStrategy", rule(13))...)
	errs = append(errs, validateScatter(u.ScatterStrategy, base+".scatterStrategy", rule(14))...)

	var unavailable, surge int
	mp := base + ".maxUnavailable"
	if u.MaxUnavailable != nil {
		n, err := u.MaxUnavailable.ScaledValueKruise(replicas, true)
		if err != nil {
			errs = append(errs, errInvalid(rule(15), mp, *u.MaxUnavailable, "failed GetScaledValueFromIntOrPercent for maxUnavailable: "+err.Error()))
			n = 0
		}
		unavailable = n
	}
	if u.MaxSurge != nil {
		sp := base + ".maxSurge"
		n, err := u.MaxSurge.ScaledValueKruise(replicas, true)
		if err != nil {
			errs = append(errs, errInvalid(rule(16), sp, *u.MaxSurge, "failed GetScaledValueFromIntOrPercent for maxSurge: "+err.Error()))
			n = 0
		} else if inPlaceOnly && n != 0 {
			errs = append(errs, errInvalid(rule(16), sp, *u.MaxSurge, surgeMsg))
		}
		surge = n
	}
	if !surgeRescues {
		surge = 0 // [quirk B17] the v1beta1 check never sees maxSurge.
	}
	if replicas > 0 && unavailable < 1 && surge < 1 {
		var bad any = rawValue("null")
		if u.MaxUnavailable != nil {
			bad = *u.MaxUnavailable
		}
		errs = append(errs, errInvalid(rule(17), mp, bad, "maxUnavailable and maxSurge should not both be less than 1"))
	}
	return errs
}

func validatePriority(p *UpdatePriorityStrategy, base, rule string) FieldErrors {
	if p == nil {
		return nil
	}
	var errs FieldErrors
	if len(p.WeightPriority) > 0 && len(p.OrderPriority) > 0 {
		return FieldErrors{errRequired(rule, base+".weightPriority", "only one of weightPriority and orderPriority can be used")}
	}
	for i, w := range p.WeightPriority {
		wp := fmt.Sprintf("%s.weightPriority[%d]", base, i)
		if w.Weight < 0 || w.Weight > 100 {
			e := errRequired(rule, wp+".weight", "weight must be valid number in the range 1-100")
			e.BadValue = strconv.Itoa(int(w.Weight))
			errs = append(errs, e)
			continue
		}
		if w.MatchSelector.Empty() {
			errs = append(errs, errRequired(rule, wp+".matchSelector", "selector can not be empty"))
			continue
		}
		if err := selectorConvertError(&w.MatchSelector); err != nil {
			errs = append(errs, errRequired(rule, wp+".matchSelector", fmt.Sprintf("invalid selector %v", err)))
		}
	}
	for i, o := range p.OrderPriority {
		if o.OrderedKey == "" {
			errs = append(errs, errRequired(rule, fmt.Sprintf("%s.orderPriority[%d].orderedKey", base, i), "order key can not be empty"))
		}
	}
	return errs
}

func validateScatter(terms []ScatterTerm, base, rule string) FieldErrors {
	var errs FieldErrors
	seen := map[ScatterTerm]bool{}
	for i, t := range terms {
		if t.Key == "" {
			errs = append(errs, errRequired(rule, fmt.Sprintf("%s[%d].key", base, i), "key should not be empty"))
		}
		if seen[t] {
			errs = append(errs, errRequired(rule, fmt.Sprintf("%s[%d]", base, i), fmt.Sprintf("duplicated key=%v value=%v", t.Key, t.Value)))
		}
		seen[t] = true
	}
	return errs
}

// validateCommon is A1-A8 / B1-B8: metadata, replicas, selector, template.
func validateCommon(cs *CloneSet, v string) FieldErrors {
	rule := func(n int) string { return v + strconv.Itoa(n) }
	var errs FieldErrors

	// A0: the webhook first reads the object into the API's Go types; a
	// template member of the wrong type (or a quantity, a time that does
	// not parse) fails there.
	if raw := cs.Spec.Template.Raw; raw != nil {
		if err := podtemplate.Check(raw, "spec.template"); err != nil {
			e, _ := err.(*podtemplate.Error)
			if e == nil {
				e = &podtemplate.Error{Path: "spec.template", Reason: err.Error()}
			}
			errs = append(errs, FieldError{Path: e.Path, Type: ErrorTypeInvalid, BadValue: e.Value, Message: e.Reason, Rule: rule(0)})
		}
	}

	// A1: metadata.
	if cs.Name == "" {
		errs = append(errs, errRequired(rule(1), "metadata.name", "name or generateName is required"))
	} else if msg := checkDNS1123Subdomain(cs.Name); msg != "" {
		errs = append(errs, errInvalid(rule(1), "metadata.name", cs.Name, msg))
	}
	if cs.Namespace == "" {
		errs = append(errs, errRequired(rule(1), "metadata.namespace", ""))
	} else if msg := checkDNS1123Label(cs.Namespace); msg != "" {
		errs = append(errs, errInvalid(rule(1), "metadata.namespace", cs.Namespace, msg))
	}
	if cs.Generation < 0 {
		errs = append(errs, errInvalid(rule(1), "metadata.generation", cs.Generation, msgNonNegative))
	}
	errs = append(errs, validateLabels(cs.Labels, "metadata.labels", rule(1))...)
	errs = append(errs, validateAnnotations(cs.Annotations, "metadata.annotations", rule(1))...)

	// A2: replicas.
	if cs.Spec.Replicas != nil && *cs.Spec.Replicas < 0 {
		errs = append(errs, errInvalid(rule(2), "spec.replicas", *cs.Spec.Replicas, msgNonNegative))
	}

	// A3, A4: selector.
	sel := cs.Spec.Selector
	if sel == nil {
		errs = append(errs, errRequired(rule(3), "spec.selector", ""))
	} else {
		errs = append(errs, validateLabelSelector(sel, "spec.selector", rule(4))...)
		if sel.Empty() {
			errs = append(errs, errInvalid(rule(4), "spec.selector", sel.String(), "empty selector is invalid for cloneset"))
		}
	}
	t := &cs.Spec.Template
	if sel != nil && selectorConvertError(sel) != nil {
		// A5 and A6 are skipped.
		errs = append(errs, errInvalid(rule(4), "spec.selector", sel.String(), ""))
	} else {
		// A5: the selector must match the template labels. A nil selector
		// converts to "nothing", which matches no labels; an empty one to
		// "everything".
		if sel == nil || (!sel.Empty() && !sel.Matches(t.Labels)) {
			errs = append(errs, errInvalid(rule(5), "spec.template.metadata.labels", labelsString(t.Labels), "`selector` does not match template `labels`"))
		}
		// A6: the pod template.
		errs = append(errs, validatePodTemplate(t, cs.Spec.VolumeClaimTemplates, "spec.template", rule(6))...)
	}

	// A7: restartPolicy.
	sp := "spec.template.spec"
	if rp := t.Spec.RestartPolicy; rp != "" && rp != "Always" {
		errs = append(errs, errNotSupported(rule(7), sp+".restartPolicy", rp, "Always"))
	}
	// A8: activeDeadlineSeconds.
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, errForbidden(rule(8), sp+".activeDeadlineSeconds", "activeDeadlineSeconds in cloneset is not Supported"))
	}
	return errs
}

func labelsString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ":" + m[k]
	}
	return "map[" + strings.Join(parts, " ") + "]"
}

// validatePodTemplate is A6: the part of Kubernetes' pod template validation
// that covers the fields the library models (metadata, containers and init
// containers with names, images, env names and resources, volume names with
// the volumeClaimTemplates added, volume mounts, readiness gates, spread
// constraint keys).
func validatePodTemplate(t *PodTemplate, vcts []VolumeClaimTemplate, base, r6 string) FieldErrors {
	var errs FieldErrors
	errs = append(errs, validateLabels(t.Labels, base+".metadata.labels", r6)...)
	errs = append(errs, validateAnnotations(t.Annotations, base+".metadata.annotations", r6)...)

	sp := base + ".spec"
	s := &t.Spec

	// Volumes, with one PVC volume per volumeClaimTemplate appended.
	volumes := append([]string(nil), s.Volumes...)
	for _, vct := range vcts {
		volumes = append(volumes, vct.Name)
	}
	volSet := map[string]bool{}
	for i, name := range volumes {
		p := fmt.Sprintf("%s.volumes[%d].name", sp, i)
		switch {
		case name == "":
			errs = append(errs, errRequired(r6, p, ""))
		case checkDNS1123Label(name) != "":
			errs = append(errs, errInvalid(r6, p, name, checkDNS1123Label(name)))
		case volSet[name]:
			errs = append(errs, errDuplicate(r6, p, name))
		}
		volSet[name] = true
	}

	names := map[string]bool{}
	if len(s.Containers) == 0 {
		errs = append(errs, errRequired(r6, sp+".containers", ""))
	}
	rawSpec, _ := t.Raw["spec"].(map[string]any)
	for _, group := range []struct {
		field string
		list  []Container
		init  bool
	}{{"initContainers", s.InitContainers, true}, {"containers", s.Containers, false}} {
		rawList, _ := rawSpec[group.field].([]any)
		for i, c := range group.list {
			cp := fmt.Sprintf("%s.%s[%d]", sp, group.field, i)
			switch {
			case c.Name == "":
				errs = append(errs, errRequired(r6, cp+".name", ""))
			case checkDNS1123Label(c.Name) != "":
				errs = append(errs, errInvalid(r6, cp+".name", c.Name, checkDNS1123Label(c.Name)))
			case names[c.Name]:
				errs = append(errs, errDuplicate(r6, cp+".name", c.Name))
			}
			names[c.Name] = true
			if strings.TrimSpace(c.Image) == "" {
				errs = append(errs, errRequired(r6, cp+".image", ""))
			} else if c.Image != strings.TrimSpace(c.Image) {
				errs = append(errs, errInvalid(r6, cp+".image", c.Image, "must not have leading or trailing whitespace"))
			}
			if group.init {
				if c.RestartPolicy != "" && c.RestartPolicy != "Always" {
					errs = append(errs, errNotSupported(r6, cp+".restartPolicy", c.RestartPolicy, "Always"))
				}
			} else if c.RestartPolicy != "" {
				errs = append(errs, errForbidden(r6, cp+".restartPolicy", "may not be set for non-init containers"))
			}
			var rawContainer map[string]any
			if i < len(rawList) {
				rawContainer, _ = rawList[i].(map[string]any)
			}
			errs = append(errs, validatePorts(rawContainer["ports"], cp+".ports", r6)...)
			for j, e := range c.Env {
				if e.Name == "" {
					errs = append(errs, errRequired(r6, fmt.Sprintf("%s.env[%d].name", cp, j), ""))
				}
			}
			errs = append(errs, validateVolumeMounts(rawContainer["volumeMounts"], volSet, cp+".volumeMounts", r6)...)
			errs = append(errs, validateResources(c.Resources, cp+".resources", r6)...)
			if group.init && len(c.ResizePolicy) > 0 {
				errs = append(errs, errInvalid(r6+"-initResize", cp+".resizePolicy", resizePolicyValue(c.ResizePolicy), "must not be set for init containers"))
			}
		}
	}
	for i, g := range s.ReadinessGates {
		if msg := checkQualifiedName(g); msg != "" {
			errs = append(errs, errInvalid(r6, fmt.Sprintf("%s.readinessGates[%d].conditionType", sp, i), g, msg))
		}
	}
	for i, c := range s.TopologySpreadConstraints {
		if c.TopologyKey == "" {
			errs = append(errs, errRequired(r6, fmt.Sprintf("%s.topologySpreadConstraints[%d].topologyKey", sp, i), "can not be empty"))
		}
	}

	return errs
}

// validatePorts is Kubernetes' validation of a container's ports (a raw
// list): a port name is an IANA service name, unique in the container; a
// containerPort is set and in 1-65535, a hostPort when set too; a protocol,
// when set, is TCP, UDP or SCTP (an unset one is the defaults' business).
func validatePorts(raw any, base, rule string) FieldErrors {
	var errs FieldErrors
	ports, _ := raw.([]any)
	names := map[string]bool{}
	for i, p := range ports {
		pm, _ := p.(map[string]any)
		pp := fmt.Sprintf("%s[%d]", base, i)
		if name, _ := pm["name"].(string); name != "" {
			if msgs := portNameProblems(name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, errInvalid(rule, pp+".name", name, msg))
				}
			} else if names[name] {
				errs = append(errs, errDuplicate(rule, pp+".name", name))
			} else {
				names[name] = true
			}
		}
		if n, _ := rawInt(pm["containerPort"]); n == 0 {
			errs = append(errs, errRequired(rule, pp+".containerPort", ""))
		} else if n < 1 || n > 65535 {
			errs = append(errs, errInvalid(rule, pp+".containerPort", n, msgPortRange))
		}
		if n, _ := rawInt(pm["hostPort"]); n != 0 && (n < 1 || n > 65535) {
			errs = append(errs, errInvalid(rule, pp+".hostPort", n, msgPortRange))
		}
		switch proto, _ := pm["protocol"].(string); proto {
		case "", "TCP", "UDP", "SCTP":
		default:
			errs = append(errs, errNotSupported(rule, pp+".protocol", proto, "SCTP", "TCP", "UDP"))
		}
	}
	return errs
}

const msgPortRange = "must be between 1 and 65535, inclusive"

var portNameCharsRe = regexp.MustCompile(`^[-a-z0-9]+$`)

// portNameProblems is Kubernetes' IsValidPortName.
func portNameProblems(name string) []string {
	var msgs []string
	if len(name) > 15 {
		msgs = append(msgs, "must be no more than 15 characters")
	}
	if !portNameCharsRe.MatchString(name) {
		msgs = append(msgs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") {
		msgs = append(msgs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(name, "--") {
		msgs = append(msgs, "must not contain consecutive hyphens")
	}
	if name[0] == '-' || name[len(name)-1] == '-' {
		msgs = append(msgs, "must not begin or end with a hyphen")
	}
	return msgs
}

// validateVolumeMounts is the part of Kubernetes' validation of a
// container's volume mounts (a raw list) that needs no volume details: a
// name that is set and names a volume (or a claim template), a mountPath
// that is set and unique in the container.
func validateVolumeMounts(raw any, volumes map[string]bool, base, rule string) FieldErrors {
	var errs FieldErrors
	mounts, _ := raw.([]any)
	paths := map[string]bool{}
	for j, m := range mounts {
		mm, _ := m.(map[string]any)
		mp := fmt.Sprintf("%s[%d]", base, j)
		name, _ := mm["name"].(string)
		if name == "" {
			errs = append(errs, errRequired(rule, mp+".name", ""))
		} else if !volumes[name] {
			errs = append(errs, FieldError{Path: mp + ".name", Type: ErrorTypeNotFound, BadValue: strconv.Quote(name), Rule: rule})
		}
		path, _ := mm["mountPath"].(string)
		switch {
		case path == "":
			errs = append(errs, errRequired(rule, mp+".mountPath", ""))
		case paths[path]:
			errs = append(errs, errInvalid(rule, mp+".mountPath", path, "must be unique"))
		}
		paths[path] = true
	}
	return errs
}

// rawInt reads an integer of a raw tree (json.Number, a Go integer, or a
// float64 holding one).
func rawInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}

// resizePolicyValue renders a resizePolicy list as a bad value.
func resizePolicyValue(l []ContainerResizePolicy) rawValue {
	parts := make([]string, len(l))
	for i, p := range l {
		parts[i] = fmt.Sprintf("{resourceName:%s restartPolicy:%s}", p.ResourceName, p.RestartPolicy)
	}
	return rawValue("[" + strings.Join(parts, " ") + "]")
}

func validateResources(r ResourceRequirements, base, rule string) FieldErrors {
	var errs FieldErrors
	for _, kind := range []struct {
		name string
		m    map[string]Quantity
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range sortedKeys(kind.m) {
			q := kind.m[name]
			if q.Sign() < 0 {
				errs = append(errs, errInvalid(rule, fmt.Sprintf("%s.%s[%s]", base, kind.name, name), q.String(), msgNonNegative))
			}
		}
	}
	for _, name := range sortedKeys(r.Requests) {
		req := r.Requests[name]
		if lim, ok := r.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, errInvalid(rule+"-requests", base+".requests", req.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateLabelSelector is metav1 validation's ValidateLabelSelector.
func validateLabelSelector(s *LabelSelector, base, rule string) FieldErrors {
	var errs FieldErrors
	errs = append(errs, validateLabels(s.MatchLabels, base+".matchLabels", rule)...)
	for i, e := range s.MatchExpressions {
		p := fmt.Sprintf("%s.matchExpressions[%d]", base, i)
		switch e.Operator {
		case OpIn, OpNotIn:
			if len(e.Values) == 0 {
				errs = append(errs, errRequired(rule, p+".values", "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case OpExists, OpDoesNotExist:
			if len(e.Values) > 0 {
				errs = append(errs, errForbidden(rule, p+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, errInvalid(rule, p+".operator", e.Operator, "not a valid selector operator"))
		}
		if msg := checkQualifiedName(e.Key); msg != "" {
			errs = append(errs, errInvalid(rule, p+".key", e.Key, msg))
		}
		for j, val := range e.Values {
			if msg := checkLabelValue(val); msg != "" {
				errs = append(errs, errInvalid(rule, fmt.Sprintf("%s.values[%d]", p, j), val, msg))
			}
		}
	}
	return errs
}

// selectorConvertError reports whether LabelSelectorAsSelector would fail.
func selectorConvertError(s *LabelSelector) error {
	if err := s.Check(); err != nil {
		return err
	}
	for k, v := range s.MatchLabels {
		if msg := checkQualifiedName(k); msg != "" {
			return fmt.Errorf("key %q: %s", k, msg)
		}
		if msg := checkLabelValue(v); msg != "" {
			return fmt.Errorf("values[0][%s]: invalid value %q: %s", k, v, msg)
		}
	}
	for _, e := range s.MatchExpressions {
		if msg := checkQualifiedName(e.Key); msg != "" {
			return fmt.Errorf("key %q: %s", e.Key, msg)
		}
		for _, v := range e.Values {
			if msg := checkLabelValue(v); msg != "" {
				return fmt.Errorf("values[0][%s]: invalid value %q: %s", e.Key, v, msg)
			}
		}
	}
	return nil
}

func validateLabels(m map[string]string, path, rule string) FieldErrors {
	var errs FieldErrors
	for _, k := range sortedKeys(m) {
		if msg := checkQualifiedName(k); msg != "" {
			errs = append(errs, errInvalid(rule, path, k, msg))
		}
		if msg := checkLabelValue(m[k]); msg != "" {
			errs = append(errs, errInvalid(rule, path, m[k], msg))
		}
	}
	return errs
}

const totalAnnotationSizeLimit = 256 * 1024

func validateAnnotations(m map[string]string, path, rule string) FieldErrors {
	var errs FieldErrors
	size := 0
	for _, k := range sortedKeys(m) {
		if msg := checkQualifiedName(strings.ToLower(k)); msg != "" {
			errs = append(errs, errInvalid(rule, path, k, msg))
		}
		size += len(k) + len(m[k])
	}
	if size > totalAnnotationSizeLimit {
		errs = append(errs, FieldError{Path: path, Type: ErrorTypeInvalid, Message: fmt.Sprintf("must have at most %d bytes", totalAnnotationSizeLimit), Rule: rule})
	}
	return errs
}

var (
	dns1123LabelRe     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123SubdomainRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	qualifiedNameRe    = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValueRe       = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

func checkDNS1123Label(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 characters"
	}
	if !dns1123LabelRe.MatchString(s) {
		return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	}
	return ""
}

func checkDNS1123Subdomain(s string) string {
	if len(s) > 253 {
		return "must be no more than 253 characters"
	}
	if !dns1123SubdomainRe.MatchString(s) {
		return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	}
	return ""
}

func checkQualifiedName(s string) string {
	name := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		prefix := s[:i]
		name = s[i+1:]
		if strings.Contains(prefix, "/") {
			return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
		}
		if prefix == "" {
			return "prefix part must be non-empty"
		}
		if msg := checkDNS1123Subdomain(prefix); msg != "" {
			return "prefix part " + msg
		}
	}
	if name == "" {
		return "name part must be non-empty"
	}
	if len(name) > 63 {
		return "name part must be no more than 63 characters"
	}
	if !qualifiedNameRe.MatchString(name) {
		return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	}
	return ""
}

func checkLabelValue(s string) string {
	if len(s) > 63 {
		return "must be no more than 63 characters"
	}
	if !labelValueRe.MatchString(s) {
		return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	}
	return ""
}

func duplicates(list []string) []string {
	seen := map[string]bool{}
	var dups []string
	for _, s := range list {
		if seen[s] {
			dups = append(dups, s)
		}
		seen[s] = true
	}
	return dups
}

// selectorsEqual is semantic equality: nil and empty maps and lists are equal,
// expression order matters.
func selectorsEqual(a, b *LabelSelector) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if len(a.MatchLabels) != len(b.MatchLabels) || len(a.MatchExpressions) != len(b.MatchExpressions) {
		return false
	}
	for k, v := range a.MatchLabels {
		if w, ok := b.MatchLabels[k]; !ok || w != v {
			return false
		}
	}
	for i := range a.MatchExpressions {
		x, y := a.MatchExpressions[i], b.MatchExpressions[i]
		if x.Key != y.Key || x.Operator != y.Operator || len(x.Values) != len(y.Values) {
			return false
		}
		for j := range x.Values {
			if x.Values[j] != y.Values[j] {
				return false
			}
		}
	}
	return true
}

var imagePathRe = regexp.MustCompile(`^/containers/[0-9]+/image$`)

// firstForbiddenInPlaceOnlyChange diffs two template specs (JSON-like trees)
// as a JSON patch would and returns the first operation that is not a replace
// of /containers/<i>/image (A21).
func firstForbiddenInPlaceOnlyChange(oldSpec, newSpec any) (op, path string, found bool) {
	type patchOp struct{ op, path string }
	var ops []patchOp
	var diff func(a, b any, p string)
	diff = func(a, b any, p string) {
		switch x := a.(type) {
		case map[string]any:
			y, ok := b.(map[string]any)
			if !ok {
				ops = append(ops, patchOp{"replace", p})
				return
			}
			for _, k := range sortedKeys(x) {
				kp := p + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
				if yv, ok := y[k]; ok {
					diff(x[k], yv, kp)
				} else {
					ops = append(ops, patchOp{"remove", kp})
				}
			}
			for _, k := range sortedKeys(y) {
				if _, ok := x[k]; !ok {
					ops = append(ops, patchOp{"add", p + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")})
				}
			}
		case []any:
			y, ok := b.([]any)
			if !ok {
				ops = append(ops, patchOp{"replace", p})
				return
			}
			n := min(len(x), len(y))
			for i := 0; i < n; i++ {
				diff(x[i], y[i], fmt.Sprintf("%s/%d", p, i))
			}
			for i := len(x) - 1; i >= n; i-- {
				ops = append(ops, patchOp{"remove", fmt.Sprintf("%s/%d", p, i)})
			}
			for i := n; i < len(y); i++ {
				ops = append(ops, patchOp{"add", fmt.Sprintf("%s/%d", p, i)})
			}
		default:
			if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
				ops = append(ops, patchOp{"replace", p})
			}
		}
	}
	diff(NormalizeTree(orEmpty(oldSpec)), NormalizeTree(orEmpty(newSpec)), "")
	for _, o := range ops {
		if o.op != "replace" || !imagePathRe.MatchString(o.path) {
			return o.op, o.path, true
		}
	}
	return "", "", false
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}
