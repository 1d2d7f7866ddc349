package app

import (
	"time"

	"launchdir/ops"
)

// Weeks run Monday to Sunday in UTC; a week is named by its Monday.
const dateLayout = "2006-01-02"

// Monday returns the Monday (00:00 UTC) of t's week.
func Monday(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	offset := (int(d.Weekday()) + 6) % 7 // Monday = 0
	return d.AddDate(0, 0, -offset)
}

// WeekOf formats the Monday of t's week.
func WeekOf(t time.Time) string { return Monday(t).Format(dateLayout) }

// weekSchema accepts this, next, last or a date (max 10 chars); the
// pattern admits only months 01-12 and days 01-31, the check real dates.
var weekSchema = ops.Pattern(`^(this|next|last|[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$`, 10).Desc(
	"this, next, last, or a date YYYY-MM-DD (any day: it is snapped to its Monday; years 2000-2100). At most 52 weeks ahead; weeks before the directory's first launch week are not found.").Checked(func(v any) string {
	s := v.(string)
	if len(s) == 10 {
		d, err := time.Parse(dateLayout, s)
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

// ResolveWeek turns this/next/last or a date into the Monday of that week.
func ResolveWeek(now time.Time, s string) (string, error) {
	switch s {
	case "this", "":
		return WeekOf(now), nil
	case "next":
		return WeekOf(Monday(now).AddDate(0, 0, 7)), nil
	case "last":
		return WeekOf(Monday(now).AddDate(0, 0, -7)), nil
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return "", ops.Invalid("week", "must be this, next, last or a date as YYYY-MM-DD")
	}
	return WeekOf(t), nil
}
