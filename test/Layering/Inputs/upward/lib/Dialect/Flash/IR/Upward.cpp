// The dialect reaching up into the pipelines.
#include "flash/Pipelines/Pipelines.h"
