#include "mlir/IR/Value.h"
