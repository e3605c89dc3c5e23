#include "query/binder.h"
