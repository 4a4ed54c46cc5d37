"""Go-compatible parsing (pure): YAML read as Helm and go-yaml read it (yamlio, yamlnodes, goyaml),
Go's strconv and fmt (gostrconv, gofmt), RE2 regular expressions (goregex) and kubectl's JSONPath
(jsonpath*). The core and the effects both read through these, so they depend on nothing but errors."""
