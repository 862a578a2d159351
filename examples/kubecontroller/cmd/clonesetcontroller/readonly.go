package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// readOnlyClient is the client of a dry run: it reads and refuses every
// write, so that a dry run cannot write even by mistake (the Reconciler sends
// nothing in a dry run; this makes sure of it).
type readOnlyClient struct {
	client.Client
}

// errDryRunWrite is the error of every write of a readOnlyClient.
func errDryRunWrite(verb string, obj any) error {
	name := ""
	if o, ok := obj.(client.Object); ok {
		name = " " + o.GetNamespace() + "/" + o.GetName()
	}
	return fmt.Errorf("dry run: refused to %s %T%s", verb, obj, name)
}

func (readOnlyClient) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	return errDryRunWrite("create", obj)
}

func (readOnlyClient) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	return errDryRunWrite("delete", obj)
}

func (readOnlyClient) DeleteAllOf(_ context.Context, obj client.Object, _ ...client.DeleteAllOfOption) error {
	return errDryRunWrite("delete all of", obj)
}

func (readOnlyClient) Update(_ context.Context, obj client.Object, _ ...client.UpdateOption) error {
	return errDryRunWrite("update", obj)
}

func (readOnlyClient) Patch(_ context.Context, obj client.Object, _ client.Patch, _ ...client.PatchOption) error {
	return errDryRunWrite("patch", obj)
}

func (readOnlyClient) Apply(_ context.Context, obj runtime.ApplyConfiguration, _ ...client.ApplyOption) error {
	return errDryRunWrite("apply", obj)
}

func (c readOnlyClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c readOnlyClient) SubResource(name string) client.SubResourceClient {
	return readOnlySubResource{SubResourceClient: c.Client.SubResource(name), name: name}
}

// readOnlySubResource reads a subresource and refuses every write to it.
type readOnlySubResource struct {
	client.SubResourceClient
	name string
}

func (s readOnlySubResource) Create(_ context.Context, obj, _ client.Object, _ ...client.SubResourceCreateOption) error {
	return errDryRunWrite("create "+s.name+" of", obj)
}

func (s readOnlySubResource) Update(_ context.Context, obj client.Object, _ ...client.SubResourceUpdateOption) error {
	return errDryRunWrite("update "+s.name+" of", obj)
}

func (s readOnlySubResource) Patch(_ context.Context, obj client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
	return errDryRunWrite("patch "+s.name+" of", obj)
}

func (s readOnlySubResource) Apply(_ context.Context, obj runtime.ApplyConfiguration, _ ...client.SubResourceApplyOption) error {
	return errDryRunWrite("apply "+s.name+" of", obj)
}
