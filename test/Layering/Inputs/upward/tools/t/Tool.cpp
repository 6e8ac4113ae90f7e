#include "../../lib/Dialect/Flash/Transforms/Private.h"
