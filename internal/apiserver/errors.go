package apiserver

import (
	"errors"
	"fmt"
)

// Reason classifies an API error, after the reasons of the Kubernetes API's
// Status object.
type Reason string

// The reasons a request can fail with.
const (
	// ReasonNotFound: the object does not exist (HTTP 404).
	ReasonNotFound Reason = "NotFound"
	// ReasonAlreadyExists: a create named an existing object (HTTP 409).
	ReasonAlreadyExists Reason = "AlreadyExists"
	// ReasonConflict: a precondition (uid or resourceVersion) failed (HTTP 409).
	ReasonConflict Reason = "Conflict"
	// ReasonInvalid: the resulting object is not acceptable (HTTP 422).
	ReasonInvalid Reason = "Invalid"
	// ReasonBadRequest: the request or its patch is malformed (HTTP 400).
	ReasonBadRequest Reason = "BadRequest"
	// ReasonUnsupportedMediaType: the patch type is not supported for the
	// resource (HTTP 415), e.g. a strategic merge patch of a custom resource.
	ReasonUnsupportedMediaType Reason = "UnsupportedMediaType"
)

// Error is the error every Store operation fails with.
type Error struct {
	// Reason classifies the failure.
	Reason Reason
	// Message says what failed.
	Message string
}

// Error implements error.
func (e *Error) Error() string { return string(e.Reason) + ": " + e.Message }

func errorf(reason Reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// ReasonOf returns the Reason of an error returned by this package, or ""
// for any other error (and for nil).
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// IsNotFound, IsConflict and IsAlreadyExists test an error's reason.
func IsNotFound(err error) bool { return ReasonOf(err) == ReasonNotFound }

// IsConflict reports whether err is a failed precondition.
func IsConflict(err error) bool { return ReasonOf(err) == ReasonConflict }

// IsAlreadyExists reports whether err is a create of an existing name.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == ReasonAlreadyExists }
