// The default policy: every path of every reading is indexed ("/*"), although the dashboard only
// ever filters and sorts on the device and the time. Each write pays for ~20 paths' index terms.

export const indexingPolicy = undefined;  // the service's default: index everything
