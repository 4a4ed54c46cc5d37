"""Secret rules: credentials in environment values, ConfigMaps and Secret values committed to the chart."""
