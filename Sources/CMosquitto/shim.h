// libmosquitto 2.x from Debian (libmosquitto-dev): the MQTT client (Sources/SensorMQTT wraps it).
#include <mosquitto.h>
