"""Throughput: get_throughput / replace_throughput on containers and databases, manual and autoscale
(ThroughputProperties(auto_scale_max_throughput=...)), the minimum, and the physical partitions
that a throughput gives."""
import pytest
from azure.cosmos import ThroughputProperties, exceptions

import cosmos_support as cs


def test_manual_container_throughput(make_container):
    container = make_container(offer_throughput=400)
    throughput = container.get_throughput()
    assert throughput.offer_throughput == 400
    assert throughput.auto_scale_max_throughput is None
    properties = throughput.properties
    assert properties["offerResourceId"] == container.read()["_rid"]
    assert properties["offerVersion"] == "V2"
    assert properties["content"]["offerThroughput"] == 400
    hook = cs.Hook()
    replaced = container.replace_throughput(1000, response_hook=hook)
    assert replaced.offer_throughput == 1000
    cs.charge(hook.headers, "replace offer")
    assert container.get_throughput().offer_throughput == 1000


def test_default_container_throughput_is_400(make_container):
    assert make_container().get_throughput().offer_throughput == 400


def test_below_the_minimum_is_400(make_container):
    container = make_container(offer_throughput=400)
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.replace_throughput(100)
    assert caught.value.status_code == 400, caught.value
    assert container.get_throughput().offer_throughput == 400
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        container.replace_throughput(1050)
    assert caught.value.status_code == 400, "manual throughput moves in steps of 100 RU/s"
    with pytest.raises(exceptions.CosmosHttpResponseError) as caught:
        make_container(offer_throughput=300)
    assert caught.value.status_code == 400


def test_autoscale_container(make_container):
    container = make_container(offer_throughput=ThroughputProperties(auto_scale_max_throughput=4000))
    throughput = container.get_throughput()
    assert throughput.auto_scale_max_throughput == 4000, throughput.properties
    content = throughput.properties["content"]
    assert content["offerAutopilotSettings"]["maxThroughput"] == 4000
    container.replace_throughput(ThroughputProperties(auto_scale_max_throughput=6000))
    assert container.get_throughput().auto_scale_max_throughput == 6000


def test_autoscale_maximum_decides_physical_partitions(make_container):
    container = make_container(offer_throughput=ThroughputProperties(auto_scale_max_throughput=40_000))
    assert len(list(container.read_feed_ranges())) == 4


def test_database_throughput_manual_and_replace(databases):
    database = databases.create(offer_throughput=ThroughputProperties(offer_throughput=800))
    assert database.get_throughput().offer_throughput == 800
    database.replace_throughput(ThroughputProperties(offer_throughput=1200))
    assert database.get_throughput().offer_throughput == 1200


def test_database_without_throughput_has_no_offer(database):
    cs.expect_no_offer(database.get_throughput)
