package admission

import (
	"fmt"
	"reflect"
)

// Request is one admission request to the CloneSet webhooks, with what a
// webhook server reads from admission.k8s.io/v1's AdmissionRequest: the
// operation, the version of the requested resource, and the objects as raw
// JSON, which are read once.
type Request struct {
	// Operation is CREATE, UPDATE or DELETE.
	Operation Operation
	// Version is the version of the requested resource
	// (AdmissionRequest.Resource.Version: "v1alpha1" or "v1beta1"), which
	// selects the webhook's rules; "" takes the objects' apiVersion. An
	// object of another version is an error.
	Version string
	// Object is the object of a CREATE or UPDATE (AdmissionRequest.Object.Raw).
	Object []byte
	// OldObject is the stored object of an UPDATE or a DELETE
	// (AdmissionRequest.OldObject.Raw).
	OldObject []byte
	// Options are the gates and the pod lookup.
	Options Options
}

// Default is the mutating webhook on the request (CREATE or UPDATE): the
// object as the webhook leaves it (its JSON: MarshalJSON), and whether the
// defaults changed the typed object as reflect.DeepEqual sees it (upstream
// answers without a patch when they did not, leaving the object as sent;
// else with the patch from the object as sent to the typed JSON). A
// rounding of the template's resource quantities that rewrites how a
// quantity holds its value is a change even where the JSON stays the same
// (podtemplate.DefaultRewritesQuantities). An error is the webhook's 400 Bad Request: an object its
// Go types cannot read (a *DecodeError names the field), or objects of
// another version.
func (r Request) Default() (obj *Object, changed bool, err error) {
	if r.Operation != Create && r.Operation != Update {
		return nil, false, fmt.Errorf("admission: the mutating webhook handles CREATE and UPDATE, not %q", r.Operation)
	}
	obj, old, err := r.objects()
	if err != nil {
		return nil, false, err
	}
	out, rewrites, err := defaultObject(obj, old, r.Options.Gates)
	if err != nil {
		return nil, false, err
	}
	return out, rewrites || !reflect.DeepEqual(out.tree, obj.tree), nil
}

// Validate is the validating webhook on the request: its refusals (none
// when it admits the request). An error is the webhook's 400 Bad Request.
func (r Request) Validate() (FieldErrors, error) {
	obj, old, err := r.objects()
	if err != nil {
		return nil, err
	}
	return Validate(r.Operation, obj, old, r.Options)
}

// objects reads the request's objects: Object for CREATE and UPDATE,
// OldObject for UPDATE and DELETE, each of the request's version.
func (r Request) objects() (obj, old *Object, err error) {
	var want Version
	if r.Version != "" {
		if want, err = ParseVersion(r.Version); err != nil {
			return nil, nil, err
		}
	}
	read := func(data []byte, what string) (*Object, error) {
		if len(data) == 0 {
			return nil, fmt.Errorf("admission: a %s request without %s", r.Operation, what)
		}
		o, err := Parse(data)
		if err != nil {
			return nil, err
		}
		if want != "" && o.version != want {
			return nil, fmt.Errorf("%s: %s is %s, the request is for %s", o, what, o.version.APIVersion(), want.APIVersion())
		}
		want = o.version
		return o, nil
	}
	switch r.Operation {
	case Create, Update:
		if obj, err = read(r.Object, "object"); err != nil {
			return nil, nil, err
		}
	}
	switch r.Operation {
	case Update:
		old, err = read(r.OldObject, "old object")
	case Delete:
		if len(r.OldObject) > 0 { // upstream admits a delete without it
			old, err = read(r.OldObject, "old object")
		}
	case Create:
	default:
		err = fmt.Errorf("admission: operation %q: want CREATE, UPDATE or DELETE", r.Operation)
	}
	return obj, old, err
}

// ConvertJSON is the conversion webhook on one object: the CloneSet of JSON
// data in the version to (its typed JSON). See Convert.
func ConvertJSON(data []byte, to Version) ([]byte, error) {
	obj, err := Parse(data)
	if err != nil {
		return nil, err
	}
	out, err := Convert(obj, to)
	if err != nil {
		return nil, err
	}
	return out.MarshalJSON()
}
