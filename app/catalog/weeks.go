package catalog

import (
	"time"

	"launchdir/app/kernel"
	"launchdir/ops"
)

// weekSchema accepts this, next, last or a date (max 10 chars); the
// pattern admits only months 01-12 and days 01-31, the check real dates.
var weekSchema = ops.Pattern(`^(this|next|last|[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$`, 10).Desc(
	"this, next, last, or a date YYYY-MM-DD (any day: it is snapped to its Monday; years 2000-2100). At most 52 weeks ahead; weeks before the directory's first launch week are not found.").Checked(func(v any) string {
	s := v.(string)
	if len(s) == 10 {
		d, err := time.Parse(kernel.DateLayout, s)
		if err != nil {
			return "is not a real date"
		}
		if d.Year() < 2000 || d.Year() > 2100 {
			return "must be a date between 2000 and 2100"
		}
	}
	return ""
})

// boardWeekSchema: the weekly board takes this, last or a date (spec
// section 4); a future week has no votes to rank.
var boardWeekSchema = weekSchema.Checked(func(v any) string {
	if v.(string) == "next" {
		return "must be this, last or a date"
	}
	return weekSchema.Check(v)
})
