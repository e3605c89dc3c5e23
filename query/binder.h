// placeholder, replaced shortly
#pragma once
