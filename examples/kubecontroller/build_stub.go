package kubecontroller

import (
	"errors"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// errNoBuild is the answer of buildRequests until requests.Build exists.
var errNoBuild = errors.New("requests.Build is not in the library yet")

// buildRequests turns a plan into requests (requests.Build).
var buildRequests buildRequestsFunc = func(*model.Scenario, *clonesetcore.Result) ([]requests.Request, error) {
	return nil, errNoBuild
}
