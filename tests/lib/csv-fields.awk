# tests/lib/csv-fields.awk: each field's value of every CSV line read, one
# per line (quotes removed, "" -> "). Needs experiments/lib/csv.awk first:
#   awk -f experiments/lib/csv.awk -f tests/lib/csv-fields.awk FILE
{ n = csv_split($0, f); for (i = 1; i <= n; i++) print csv_val(f[i]) }
