package routes_test

import "launchdir/routes"

func routesOpts(perSec float64, burst int) routes.Options {
	return routes.Options{RatePerSecond: perSec, RateBurst: burst}
}
