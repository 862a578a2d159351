package controlplane

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// AuditPolicyWrites is an audit policy (Options.AuditPolicy) that records,
// at level Metadata and once per request (stage ResponseComplete), every
// create, update, patch and delete (deletecollection included) of pods,
// persistent volume claims, controller revisions and CloneSets, their
// subresources included (pods/status, pods/binding: the scheduler's,
// pods/resize, pods/eviction, clonesets/status, clonesets/scale), and
// nothing else. The user of each event tells whose write it was
// (AdminUser, SchedulerUser, KwokUser, ControllerManagerUser for the
// garbage collector, or a user of UserConfig).
const AuditPolicyWrites = auditPolicyHead + auditRuleWrites + auditRuleNone

// AuditPolicyWritesAndServiceAccounts is AuditPolicyWrites plus every
// request of a service account (group system:serviceaccounts), whatever its
// verb and resource, at level Metadata and once per request: the requests
// of a controller run with a service account's token, reads and refused
// requests (403 Forbidden) included. The control plane's own components
// authenticate with their users, not service accounts.
const AuditPolicyWritesAndServiceAccounts = auditPolicyHead + auditRuleServiceAccounts + auditRuleWrites + auditRuleNone

// The parts of the audit policies.
const (
	auditPolicyHead = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
`
	auditRuleServiceAccounts = `- level: Metadata
  userGroups: [system:serviceaccounts]
`
	auditRuleWrites = `- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
  resources:
  - group: ""
    resources: [pods, pods/*, persistentvolumeclaims, persistentvolumeclaims/*]
  - group: apps
    resources: [controllerrevisions]
  - group: apps.kruise.io
    resources: [clonesets, clonesets/*]
`
	auditRuleNone = `- level: None
`
)

// AuditEvent is one event of the audit log (audit.k8s.io/v1 Event, the
// fields a test reads).
type AuditEvent struct {
	Level      string    `json:"level"`
	AuditID    string    `json:"auditID"`
	Stage      string    `json:"stage"`
	RequestURI string    `json:"requestURI"`
	Verb       string    `json:"verb"`
	User       AuditUser `json:"user"`
	UserAgent  string    `json:"userAgent,omitempty"`
	ObjectRef  *struct {
		Resource        string `json:"resource,omitempty"`
		Namespace       string `json:"namespace,omitempty"`
		Name            string `json:"name,omitempty"`
		UID             string `json:"uid,omitempty"`
		APIGroup        string `json:"apiGroup,omitempty"`
		APIVersion      string `json:"apiVersion,omitempty"`
		ResourceVersion string `json:"resourceVersion,omitempty"`
		Subresource     string `json:"subresource,omitempty"`
	} `json:"objectRef,omitempty"`
	ResponseStatus *struct {
		Code    int    `json:"code,omitempty"`
		Status  string `json:"status,omitempty"`
		Reason  string `json:"reason,omitempty"`
		Message string `json:"message,omitempty"`
	} `json:"responseStatus,omitempty"`
	RequestObject            json.RawMessage   `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage   `json:"responseObject,omitempty"`
	RequestReceivedTimestamp time.Time         `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time         `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

// AuditUser is the user of an audit event.
type AuditUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups,omitempty"`
}

// Code is the response's HTTP status code (0 when the event has none).
func (e *AuditEvent) Code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// AuditLogPath is the API server's audit log (--audit-log-path), in the
// control plane's directory; it exists only with Options.AuditPolicy and
// is appended to across API server restarts.
func (cp *ControlPlane) AuditLogPath() string {
	return filepath.Join(cp.dir, "audit.log")
}

// AuditEvents reads the audit log back, in the order the API server wrote
// it. The API server writes an event when the request completes, which may
// be just after the client got its response: a test looking for the event
// of a request it just made polls. A last line still being written is left
// out.
func (cp *ControlPlane) AuditEvents() ([]AuditEvent, error) {
	if cp.opts.AuditPolicy == "" {
		return nil, errors.New("controlplane: no audit log: Options.AuditPolicy is empty")
	}
	f, err := os.Open(cp.AuditLogPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("controlplane: audit log: %w", err)
	}
	defer f.Close()
	var events []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	var bad error
	for sc.Scan() {
		line++
		if bad != nil {
			return nil, bad // a bad line followed by another one is not a partial last line
		}
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad = fmt.Errorf("controlplane: audit log line %d: %w", line, err)
			continue
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("controlplane: audit log: %w", err)
	}
	return events, nil
}
